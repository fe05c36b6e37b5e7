//! TLS of the async client: rustls with ring (the provider ureq uses too,
//! so both clients share one), verifying against the operating system's
//! certificate store as a browser would.

use std::sync::Arc;

use rustls::crypto::ring;
use rustls::{ClientConfig, RootCertStore};
use rustls_platform_verifier::BuilderVerifierExt;

pub(crate) fn client_config() -> Result<ClientConfig, rustls::Error> {
    let builder = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()?;
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
