//! TLS of the async client: rustls with ring (the provider ureq uses too,
//! so both clients share one), verifying against the operating system's
//! certificate store as a browser would.

use std::sync::Arc;

use rustls::crypto::ring;
use rustls::ClientConfig;
use rustls_platform_verifier::BuilderVerifierExt;

pub(crate) fn client_config() -> Result<ClientConfig, rustls::Error> {
    Ok(
        ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_platform_verifier()?
            .with_no_client_auth(),
    )
}
