//! TLS of the async client: rustls with ring (the provider ureq uses too,
//! so both clients share one), verifying against the operating system's
//! certificate store as a browser would, or against the root certificates
//! the caller gave instead.

use std::sync::Arc;

use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use rustls_platform_verifier::BuilderVerifierExt;

use super::options::RootCertificates;
use crate::error::{Error, Result};

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
        let store = root_store(roots).map_err(Setup::Roots)?;
        return Ok(builder.with_root_certificates(store).with_no_client_auth());
    }
    Ok(match builder.clone().with_platform_verifier() {
        Ok(config) => config.with_no_client_auth(),
        // A system without a readable certificate store (a minimal
        // container) gets Mozilla's roots rather than a client that cannot
        // even be built, also for plain-http loopback use.
        Err(_) => builder
            .with_root_certificates(RootCertStore::from_iter(
                webpki_roots::TLS_SERVER_ROOTS.iter().cloned(),
            ))
            .with_no_client_auth(),
    })
}

fn root_store(roots: &RootCertificates) -> Result<RootCertStore> {
    let invalid = |why: &str| Error::invalid("root_certificates", why);
    let mut store = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&roots.0) {
        let cert = cert.map_err(|_| invalid("not readable as PEM"))?;
        store
            .add(cert)
            .map_err(|_| invalid("a certificate that is not a valid root"))?;
    }
    if store.is_empty() {
        return Err(invalid("no certificate in the PEM text"));
    }
    Ok(store)
}
