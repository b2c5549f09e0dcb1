//! Native TLS (`--tls-cert`, `--tls-key`): the certificate chain and key,
//! read from PEM files at start-up, and the handshake that opens each
//! connection on the game port before its first request head.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::time::{timeout_at, Instant};
use tokio_rustls::TlsAcceptor;

use super::transport::{Socket, Stream};

/// The server's TLS settings, ready to accept with.
#[derive(Clone)]
pub struct Tls {
    acceptor: TlsAcceptor,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls")
    }
}

/// Why the certificate or key could not be used; each names its file.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The file could not be read, or holds no PEM certificate.
    #[error("cannot read the TLS certificate {}: {why}", .path.display())]
    Cert {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        why: String,
    },
    /// The file could not be read, or holds no PEM private key.
    #[error("cannot read the TLS key {}: {why}", .path.display())]
    Key {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        why: String,
    },
    /// rustls refused the pair (e.g. the key does not match the
    /// certificate, or is of a kind it does not support).
    #[error("the TLS certificate {} and key {} do not make a usable pair: {why}", .cert.display(), .key.display())]
    Pair {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// What rustls said.
        why: String,
    },
}

impl Tls {
    /// Reads the certificate chain at `cert` (leaf first) and the private
    /// key at `key` (PKCS#8, PKCS#1 or SEC1), both PEM.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Tls, TlsError> {
        let cert_err = |why: String| TlsError::Cert {
            path: cert.to_owned(),
            why,
        };
        let chain = CertificateDer::pem_file_iter(cert)
            .map_err(|e| cert_err(e.to_string()))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| cert_err(e.to_string()))?;
        if chain.is_empty() {
            return Err(cert_err("no PEM certificate in it".into()));
        }
        let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| TlsError::Key {
            path: key.to_owned(),
            why: match e {
                rustls::pki_types::pem::Error::NoItemsFound => "no PEM private key in it".into(),
                e => e.to_string(),
            },
        })?;
        Tls::new(chain, key_der).map_err(|why| TlsError::Pair {
            cert: cert.to_owned(),
            key: key.to_owned(),
            why,
        })
    }

    /// From a chain and key already in memory (tests).
    pub fn new(
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
    ) -> Result<Tls, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| e.to_string())?;
        // HTTP/1.1 only: the WebSocket upgrade needs it.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }

    /// The TLS handshake on `socket`, which must finish by `deadline` (the
    /// same as the first request head's: a client that says nothing, or
    /// speaks plain HTTP to this port, lets its slot go then or at once).
    pub async fn accept(&self, socket: Socket, deadline: Instant) -> Option<Stream> {
        // Boxed: the handshake's state (rustls's session, about a
        // kilobyte) would otherwise sit inline in every connection task's
        // future, plain ones included, for the connection's whole life.
        match timeout_at(deadline, Box::pin(self.acceptor.accept(socket))).await {
            Ok(Ok(tls)) => Some(Stream::Tls(Box::new(tls))),
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "TLS handshake failed");
                None
            }
            Err(_) => {
                tracing::debug!("TLS handshake timed out");
                None
            }
        }
    }
}
