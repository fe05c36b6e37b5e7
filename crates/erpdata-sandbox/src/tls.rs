//! https for the sandbox (`--tls`): a self-signed certificate for
//! `127.0.0.1` and `localhost`, made at start, so clients can be tested on
//! https and against a redirect from https to plain http. Clients trust it
//! by adding its PEM as a root.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::Listener;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// A handshake that takes longer is given up (the client is gone).
const HANDSHAKE: Duration = Duration::from_secs(10);

/// A certificate and key made for this process only.
pub struct SelfSigned {
    pem: String,
    config: Arc<rustls::ServerConfig>,
}

impl SelfSigned {
    /// A fresh certificate for `127.0.0.1` and `localhost`.
    pub fn generate() -> Result<SelfSigned, String> {
        let made = rcgen::generate_simple_self_signed(["127.0.0.1".into(), "localhost".into()])
            .map_err(|e| format!("making a certificate: {e}"))?;
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.signing_key.serialize_der()));
        let cert = CertificateDer::from(made.cert.der().to_vec());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .and_then(|b| b.with_no_client_auth().with_single_cert(vec![cert], key))
            .map_err(|e| format!("TLS setup: {e}"))?;
        Ok(SelfSigned {
            pem: made.cert.pem(),
            config: Arc::new(config),
        })
    }

    /// The certificate in PEM, for clients to trust.
    pub fn cert_pem(&self) -> &str {
        &self.pem
    }

    /// `listener`'s connections after their TLS handshake. Handshakes run
    /// side by side, so a slow client holds up no other.
    pub(crate) fn listen(&self, listener: TcpListener) -> io::Result<TlsListener> {
        let local = listener.local_addr()?;
        let acceptor = TlsAcceptor::from(self.config.clone());
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let (tcp, peer) = tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok(conn) => conn,
                        // Out of file descriptors and the like: retry shortly.
                        Err(_) => {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    },
                    () = tx.closed() => return,
                };
                let acceptor = acceptor.clone();
                let tx = tx.clone();
                tokio::spawn(async move {
                    if let Ok(Ok(tls)) = tokio::time::timeout(HANDSHAKE, acceptor.accept(tcp)).await
                    {
                        let _ = tx.send((tls, peer)).await;
                    }
                });
            }
        });
        Ok(TlsListener { rx, local })
    }
}

impl std::fmt::Debug for SelfSigned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelfSigned").finish_non_exhaustive()
    }
}

/// The connections of [`SelfSigned::listen`], for `axum::serve`.
pub(crate) struct TlsListener {
    rx: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.rx.recv().await {
            Some(conn) => conn,
            // The accepting task only ends once this listener is gone.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }
}
