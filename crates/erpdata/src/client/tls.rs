//! TLS of both clients: rustls with ring (the provider ureq uses too, so
//! both clients share one), verifying against the operating system's
//! certificate store as a browser would, or Mozilla's roots where the
//! system has none, or against the root certificates the caller gave
//! instead. Both clients read the caller's certificates and decide on the
//! fallback here, so the same PEM and the same system give the same
//! client in each.

use std::sync::Arc;

use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::RootCertStore;

use super::options::RootCertificates;
use crate::error::{Error, Result};

/// Whether the operating system's certificate store gives any root: a
/// minimal container without one gets Mozilla's roots instead of a client
/// whose every https call fails. (The async client learns it from
/// rustls-platform-verifier's builder.)
#[cfg(feature = "blocking")]
pub(crate) fn system_roots_readable() -> bool {
    rustls_platform_verifier::Verifier::new(Arc::new(ring::default_provider())).is_ok()
}

/// The certificates of the caller's PEM text, each checked to be a valid
/// root (a CERTIFICATE block that does not parse is an error here, not a
/// failed handshake later) by adding it to the store returned with them:
/// the async client's rustls takes the store, ureq the certificates.
pub(crate) fn root_certificates(
    roots: &RootCertificates,
) -> Result<(RootCertStore, Vec<CertificateDer<'static>>)> {
    let invalid = |why: &str| Error::invalid("root_certificates", why);
    let mut store = RootCertStore::empty();
    let mut certs = Vec::new();
    for cert in CertificateDer::pem_slice_iter(&roots.0) {
        let cert = cert.map_err(|_| invalid("not readable as PEM"))?;
        store
            .add(cert.clone())
            .map_err(|_| invalid("a certificate that is not a valid root"))?;
        certs.push(cert);
    }
    if certs.is_empty() {
        return Err(invalid("no certificate in the PEM text"));
    }
    Ok((store, certs))
}

/// Whether `error`, or an error below it, is rustls refusing the server's
/// certificate (untrusted, expired, for another name): a failure of its
/// own kind, [`crate::TransportKind::Tls`], which is not retried.
pub(crate) fn refused_certificate(error: &(dyn std::error::Error + 'static)) -> bool {
    matches!(
        rustls_error(error),
        Some(rustls::Error::InvalidCertificate(_))
    )
}

/// rustls's error in `error` or below it, if TLS failed.
pub(crate) fn rustls_error<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a rustls::Error> {
    let mut next = Some(error);
    // Bounded: a chain is a handful of links; a loop in one would not end.
    for _ in 0..16 {
        let e = next?;
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        // An io::Error's `source` is its inner error's source, skipping
        // the inner error itself, where hyper and ureq keep rustls's (in
        // an io::Error of its own, with hyper).
        next = match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => e.source(),
        };
    }
    None
}

#[cfg(feature = "reqwest")]
pub(crate) use async_config::{client_config, Setup};

/// The async client's rustls configuration (ureq makes its own from
/// ureq's `RootCerts`).
#[cfg(feature = "reqwest")]
mod async_config {
    use super::*;
    use rustls::ClientConfig;
    use rustls_platform_verifier::BuilderVerifierExt;

    /// Why TLS could not be set up.
    pub(crate) enum Setup {
        Roots(Error),
        Tls(rustls::Error),
    }

    pub(crate) fn client_config(
        roots: Option<&RootCertificates>,
    ) -> std::result::Result<ClientConfig, Setup> {
        let builder = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(Setup::Tls)?;
        if let Some(roots) = roots {
            let (store, _) = root_certificates(roots).map_err(Setup::Roots)?;
            return Ok(builder.with_root_certificates(store).with_no_client_auth());
        }
        Ok(match builder.clone().with_platform_verifier() {
            Ok(config) => config.with_no_client_auth(),
            // A system without a readable certificate store (a minimal
            // container) gets Mozilla's roots rather than a client that
            // cannot even be built, also for plain-http loopback use.
            Err(_) => builder
                .with_root_certificates(RootCertStore::from_iter(
                    webpki_roots::TLS_SERVER_ROOTS.iter().cloned(),
                ))
                .with_no_client_auth(),
        })
    }
}
