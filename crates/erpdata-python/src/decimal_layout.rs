//! `decimal.Decimal`s built from a column's integer and scale without
//! going through text.
//!
//! Python has no public C API that makes a `Decimal` from its digits: the
//! only ways are its constructors, which parse text (or a tuple), and cost
//! several times more than everything else a row dict needs — a table of a
//! million invoices holds millions of amounts. CPython's `_decimal`,
//! however, has one object layout in every version this package supports
//! (3.9 to 3.13 checked: a hash, then libmpdec's `mpd_t` pointing at four
//! inline 64-bit words of base-10¹⁹ digits), and a value of up to 38
//! digits always fits those words.
//!
//! So on first use this module *reads* `Decimal`s made by the constructor
//! and checks every field against what the layout predicts, then makes
//! the same values itself and checks that they compare, print and hash
//! exactly like the constructor's. Only if all of that holds (CPython,
//! 64-bit, the C `_decimal`, a release build's object size) are values
//! made this way; anywhere else — PyPy, `_pydecimal`, a debug build, a
//! future layout — every value goes through
//! `Context.create_decimal(text)`, exactly as before. Nothing is written
//! into an object the probe has not allocated itself.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyType};

use crate::convert::make_decimal;

/// libmpdec's base on 64-bit platforms: each word holds 19 decimal digits.
const RADIX: u64 = 10_000_000_000_000_000_000;
/// `mpd_t.flags`: negative; the `mpd_t` and its words live inside the
/// Python object (so libmpdec never frees or reallocates them).
const MPD_NEG: u8 = 1;
const MPD_STATIC: u8 = 16;
const MPD_STATIC_DATA: u8 = 32;
/// Words allocated inside every `Decimal` (`_Py_DEC_MINALLOC`).
const INLINE_WORDS: usize = 4;

/// libmpdec's `mpd_t`.
#[repr(C)]
struct Mpd {
    flags: u8,
    exp: isize,
    digits: isize,
    len: isize,
    alloc: isize,
    data: *mut u64,
}

/// `_decimal`'s `PyDecObject`.
#[repr(C)]
struct DecObject {
    head: ffi::PyObject,
    hash: ffi::Py_hash_t,
    dec: Mpd,
    data: [u64; INLINE_WORDS],
}

/// The `Decimal` type, once the probe has confirmed its layout; `None`
/// where values must be made from text.
static VERIFIED: PyOnceLock<Option<Py<PyType>>> = PyOnceLock::new();

/// Cases the probe checks: text, sign, coefficient, exponent. They cover
/// one and two words, both signs, zero, the widest value a column holds
/// and a coefficient ending in zeros.
const PROBES: [(&str, bool, u128, isize); 7] = [
    ("123.45", false, 12_345, -2),
    ("-0.001", true, 1, -3),
    ("0.00", false, 0, -2),
    ("7", false, 7, 0),
    ("1.10", false, 110, -2),
    (
        "12345678901234567890123.4",
        false,
        123_456_789_012_345_678_901_234,
        -1,
    ),
    (
        "-99999999999999999999999999999999999.999",
        true,
        99_999_999_999_999_999_999_999_999_999_999_999_999,
        -3,
    ),
];

/// The decimal digits of a word (1 for zero).
fn digits_of(w: u64) -> isize {
    w.checked_ilog10().map_or(1, |d| d as isize + 1)
}

/// Coefficient words, used word count and digit count of `magnitude`, or
/// `None` if it needs more than two words (more than 38 digits).
fn words(magnitude: u128) -> Option<([u64; 2], isize, isize)> {
    if let Ok(small) = u64::try_from(magnitude) {
        if small < RADIX {
            return Some(([small, 0], 1, digits_of(small)));
        }
    }
    let high = magnitude / u128::from(RADIX);
    let low = (magnitude % u128::from(RADIX)) as u64;
    let high = u64::try_from(high).ok().filter(|&h| h < RADIX)?;
    Some(([low, high], 2, 19 + digits_of(high)))
}

/// Whether the object `d` (made by the constructor) holds exactly this
/// value in the layout assumed above.
///
/// # Safety
/// `d` must be an instance of a type whose basic size is
/// `size_of::<DecObject>()`.
unsafe fn matches(d: &Bound<'_, PyAny>, negative: bool, coefficient: u128, exp: isize) -> bool {
    let Some((w, len, digits)) = words(coefficient) else {
        return false;
    };
    let o = &*d.as_ptr().cast::<DecObject>();
    let sign = if negative { MPD_NEG } else { 0 };
    o.hash == -1
        && o.dec.flags == MPD_STATIC | MPD_STATIC_DATA | sign
        && o.dec.exp == exp
        && o.dec.digits == digits
        && o.dec.len == len
        && o.dec.alloc == INLINE_WORDS as isize
        && std::ptr::eq(o.dec.data, o.data.as_ptr())
        && o.data[..len as usize] == w[..len as usize]
}

/// Makes `Decimal(sign, coefficient, exp)` in a new object of type `ty`.
///
/// # Safety
/// `ty` must be a type the probe verified.
unsafe fn build<'py>(
    ty: &Bound<'py, PyType>,
    negative: bool,
    coefficient: u128,
    exp: isize,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some((w, len, digits)) = words(coefficient) else {
        return Ok(None);
    };
    let py = ty.py();
    // Zeroed, reference-counted, tracked if the type is collected (3.13+),
    // freed by the type's own deallocator like any other `Decimal`.
    let raw = ffi::PyType_GenericAlloc(ty.as_ptr().cast(), 0);
    if raw.is_null() {
        return Err(PyErr::fetch(py));
    }
    let o = raw.cast::<DecObject>();
    (*o).hash = -1;
    (*o).data[0] = w[0];
    (*o).data[1] = w[1];
    (*o).dec = Mpd {
        flags: MPD_STATIC | MPD_STATIC_DATA | if negative { MPD_NEG } else { 0 },
        exp,
        digits,
        len,
        alloc: INLINE_WORDS as isize,
        data: std::ptr::addr_of_mut!((*o).data).cast::<u64>(),
    };
    Ok(Some(Bound::from_owned_ptr(py, raw)))
}

/// Runs the probe: the `Decimal` type if every check holds.
fn probe(py: Python<'_>) -> PyResult<Option<Py<PyType>>> {
    if cfg!(not(target_pointer_width = "64")) {
        return Ok(None);
    }
    let sys = py.import("sys")?;
    if sys
        .getattr("implementation")?
        .getattr("name")?
        .extract::<String>()?
        != "cpython"
    {
        return Ok(None);
    }
    let Ok(c_module) = py.import("_decimal") else {
        return Ok(None);
    };
    let decimal = py.import("decimal")?.getattr("Decimal")?;
    if !decimal.is(&c_module.getattr("Decimal")?) {
        return Ok(None);
    }
    let ty = decimal.cast_into::<PyType>()?;
    let size = std::mem::size_of::<DecObject>();
    if ty.getattr("__basicsize__")?.extract::<usize>()? != size
        || ty.getattr("__itemsize__")?.extract::<usize>()? != 0
    {
        return Ok(None);
    }
    let make = make_decimal(py)?;
    for (text, negative, coefficient, exp) in PROBES {
        let reference = make.call1((PyString::new(py, text),))?;
        if !reference.get_type().is(&ty) {
            return Ok(None);
        }
        // SAFETY: `reference` is a `Decimal`, whose size was checked.
        if !unsafe { matches(&reference, negative, coefficient, exp) } {
            return Ok(None);
        }
        // SAFETY: the layout was just confirmed on this very value.
        let Some(made) = (unsafe { build(&ty, negative, coefficient, exp)? }) else {
            return Ok(None);
        };
        let same = made.eq(&reference)?
            && made.str()?.to_cow()? == reference.str()?.to_cow()?
            && made
                .call_method0("as_tuple")?
                .eq(reference.call_method0("as_tuple")?)?
            && made.hash()? == reference.hash()?;
        if !same {
            return Ok(None);
        }
    }
    Ok(Some(ty.unbind()))
}

/// Makes `Decimal`s from a column's integers and scale.
pub(crate) struct DecimalMaker<'py> {
    verified: Option<Bound<'py, PyType>>,
    from_text: Bound<'py, PyAny>,
}

impl<'py> DecimalMaker<'py> {
    pub(crate) fn new(py: Python<'py>) -> PyResult<Self> {
        let verified = VERIFIED.get_or_try_init(py, || probe(py))?;
        Ok(DecimalMaker {
            verified: verified.as_ref().map(|t| t.bind(py).clone()),
            from_text: make_decimal(py)?,
        })
    }

    /// Whether values are built directly (the probe passed).
    pub(crate) fn direct(&self) -> bool {
        self.verified.is_some()
    }

    /// `value × 10^-scale`, exactly, with that many digits after the point.
    pub(crate) fn make(&self, value: i128, scale: i8) -> PyResult<Bound<'py, PyAny>> {
        if let Some(ty) = &self.verified {
            // SAFETY: the probe verified this type's layout.
            if let Some(d) =
                unsafe { build(ty, value < 0, value.unsigned_abs(), -isize::from(scale))? }
            {
                return Ok(d);
            }
        }
        let mut buf = [0u8; 48];
        let at = decimal_text(value, scale, &mut buf);
        // ASCII digits, a point and a sign only.
        let text = std::str::from_utf8(&buf[at..]).unwrap_or("NaN");
        self.from_text
            .call1((PyString::new(self.from_text.py(), text),))
    }
}

/// `value × 10^-scale` as decimal text, written backwards into `buf`;
/// returns where the text starts. 41 digits, a point, a sign and a zero
/// fit in 48 bytes for any `i128` at a scale up to 38.
fn decimal_text(value: i128, scale: i8, buf: &mut [u8; 48]) -> usize {
    let scale = scale.max(0) as usize;
    let mut mag = value.unsigned_abs();
    let mut at = buf.len();
    let mut digits = 0;
    while mag > 0 || digits <= scale {
        if digits == scale && scale > 0 {
            at -= 1;
            buf[at] = b'.';
        }
        // Most values fit in 64 bits, where division is cheap.
        let d = if let Ok(small) = u64::try_from(mag) {
            mag = u128::from(small / 10);
            (small % 10) as u8
        } else {
            let d = (mag % 10) as u8;
            mag /= 10;
            d
        };
        at -= 1;
        buf[at] = b'0' + d;
        digits += 1;
    }
    if value < 0 {
        at -= 1;
        buf[at] = b'-';
    }
    at
}
