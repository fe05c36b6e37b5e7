//! `datetime.date` and `datetime.datetime` made through the `datetime`
//! module's C API, under the stable ABI too.
//!
//! The stable ABI has no `PyDateTime_IMPORT`, so pyo3 makes dates by
//! calling the classes (keyword parsing included), and the row dicts went
//! through `fromisoformat` on the value's text, which is faster but still
//! a text, a call and a parse per value. The C API is a capsule any
//! extension may import (`PyCapsule_Import`, stable ABI): a struct whose
//! fields CPython only ever appends to, the same for 3.7 and later (type
//! objects, the UTC singleton, then the constructors used here).
//!
//! On first use, this module checks that every field before the
//! constructors is the object the layout says (the module's `date`,
//! `datetime`, `time`, `timedelta` and `tzinfo` classes and
//! `timezone.utc`), and that values the constructors make equal, print
//! and hash like those of the classes.
//! Only then are values made this way; anywhere else (another layout, no
//! capsule) the callers keep making them from text.

use std::ffi::c_int;
use std::os::raw::c_void;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// The first fields of `PyDateTime_CAPI` (`datetime.h`), those up to the
/// constructors this module calls.
#[repr(C)]
struct Capi {
    date_type: *mut ffi::PyTypeObject,
    datetime_type: *mut ffi::PyTypeObject,
    time_type: *mut ffi::PyTypeObject,
    delta_type: *mut ffi::PyTypeObject,
    tzinfo_type: *mut ffi::PyTypeObject,
    timezone_utc: *mut ffi::PyObject,
    date_from_date:
        unsafe extern "C" fn(c_int, c_int, c_int, *mut ffi::PyTypeObject) -> *mut ffi::PyObject,
    datetime_from_date_and_time: unsafe extern "C" fn(
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *mut ffi::PyObject,
        *mut ffi::PyTypeObject,
    ) -> *mut ffi::PyObject,
}

/// Makes dates and naive datetimes from their parts, through the
/// capsule's struct once checked; the struct lives as long as the
/// interpreter's `datetime` module (the capsule holds it statically).
#[derive(Clone, Copy)]
pub(crate) struct DateTimeApi {
    capi: &'static Capi,
}

// SAFETY: the struct is immutable after `datetime` is imported, and its
// functions are only called with the GIL held.
unsafe impl Send for DateTimeApi {}
unsafe impl Sync for DateTimeApi {}

static CHECKED: PyOnceLock<Option<DateTimeApi>> = PyOnceLock::new();

impl DateTimeApi {
    /// The C API, or `None` where the check did not hold.
    pub(crate) fn get(py: Python<'_>) -> PyResult<Option<Self>> {
        Ok(*CHECKED.get_or_try_init(py, || check(py))?)
    }

    /// `datetime.date(year, month, day)`; the caller checked the ranges.
    pub(crate) fn date<'py>(
        &self,
        py: Python<'py>,
        (year, month, day): (i32, u32, u32),
    ) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: the capsule was checked, and the GIL is held.
        unsafe {
            let raw =
                (self.capi.date_from_date)(year, month as c_int, day as c_int, self.capi.date_type);
            Bound::from_owned_ptr_or_err(py, raw)
        }
    }

    /// The naive `datetime.datetime` of `micros` since 1970-01-01 00:00:00;
    /// an error (as the class gives) for a year outside 1–9999.
    pub(crate) fn datetime<'py>(
        &self,
        py: Python<'py>,
        micros: i64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (days, (hour, minute, second, micro)) = erpdata::timestamp_parts(micros);
        let (y, m, d) = erpdata::civil_from_days(days);
        // SAFETY: the capsule was checked, and the GIL is held; `None`
        // is borrowed for the call (the constructor takes its own
        // reference to the tzinfo it keeps).
        unsafe {
            let raw = (self.capi.datetime_from_date_and_time)(
                y,
                m as c_int,
                d as c_int,
                hour as c_int,
                minute as c_int,
                second as c_int,
                micro as c_int,
                ffi::Py_None(),
                self.capi.datetime_type,
            );
            Bound::from_owned_ptr_or_err(py, raw)
        }
    }
}

/// Imports the capsule and checks it against the classes themselves.
fn check<'py>(py: Python<'py>) -> PyResult<Option<DateTimeApi>> {
    let datetime = py.import("datetime")?;
    let date_class = datetime.getattr("date")?;
    let datetime_class = datetime.getattr("datetime")?;
    // SAFETY: a NUL-terminated name; the capsule's pointer (if any) is
    // the module's static struct.
    let raw: *mut c_void = unsafe { ffi::PyCapsule_Import(c"datetime.datetime_CAPI".as_ptr(), 1) };
    if raw.is_null() {
        // No capsule: not an error to report, the text path stays.
        let _ = PyErr::take(py);
        return Ok(None);
    }
    // SAFETY: the capsule named `datetime.datetime_CAPI` holds a
    // `PyDateTime_CAPI`; only its first fields are read, and the
    // constructors are called only once every field before them is what
    // the layout says it is.
    let capi: &'static Capi = unsafe { &*(raw as *const Capi) };
    let fields = [
        (capi.date_type.cast::<ffi::PyObject>(), date_class.clone()),
        (capi.datetime_type.cast(), datetime_class.clone()),
        (capi.time_type.cast(), datetime.getattr("time")?),
        (capi.delta_type.cast(), datetime.getattr("timedelta")?),
        (capi.tzinfo_type.cast(), datetime.getattr("tzinfo")?),
        (
            capi.timezone_utc,
            datetime.getattr("timezone")?.getattr("utc")?,
        ),
    ];
    if fields
        .iter()
        .any(|(field, object)| *field != object.as_ptr())
    {
        return Ok(None);
    }
    let api = DateTimeApi { capi };
    let iso = |class: &Bound<'py, PyAny>, text: &str| class.call_method1("fromisoformat", (text,));
    let same = |made: Bound<'py, PyAny>, reference: Bound<'py, PyAny>| -> PyResult<bool> {
        Ok(made.get_type().is(reference.get_type())
            && made.eq(&reference)?
            && made.str()?.to_cow()? == reference.str()?.to_cow()?
            && made.hash()? == reference.hash()?)
    };
    for (parts, text) in [((2025, 2, 28), "2025-02-28"), ((1, 1, 1), "0001-01-01")] {
        if !same(api.date(py, parts)?, iso(&date_class, text)?)? {
            return Ok(None);
        }
    }
    for (micros, text) in [
        (1_735_725_106_000_000, "2025-01-01 09:51:46"),
        (951_782_400_123_456, "2000-02-29 00:00:00.123456"),
        (-1, "1969-12-31 23:59:59.999999"),
    ] {
        if !same(api.datetime(py, micros)?, iso(&datetime_class, text)?)? {
            return Ok(None);
        }
    }
    // A year past 9999 is an error, as from the class.
    let past = api.datetime(py, 253_402_300_800_000_000);
    if past.is_ok() {
        return Ok(None);
    }
    Ok(Some(api))
}
