//! Which certificate authorities a `wss://` connection trusts: the
//! public web's roots (webpki-roots, built in: no system files or C
//! library needed), plus one PEM file given with `--ca-cert` or
//! `PARLOR_CA_CERT` (a test CA, or a LAN's own).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::ClientConfig;

/// The process's TLS client settings, once made.
static CONFIG: OnceLock<Arc<ClientConfig>> = OnceLock::new();

/// Also trusts the certificates in the PEM file at `path`, for every
/// `wss://` connection this process makes from now on. Call it before
/// the first connection (later calls change nothing).
pub fn trust_ca_file(path: &Path) -> Result<(), String> {
    let extra = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("cannot read the CA certificate {}: {e}", path.display()))?;
    if extra.is_empty() {
        return Err(format!(
            "cannot read the CA certificate {}: no PEM certificate in it",
            path.display()
        ));
    }
    let config = make(extra).map_err(|e| format!("{}: {e}", path.display()))?;
    let _ = CONFIG.set(config);
    Ok(())
}

/// The settings `wss://` connections use.
pub fn config() -> Result<Arc<ClientConfig>, String> {
    if let Some(config) = CONFIG.get() {
        return Ok(Arc::clone(config));
    }
    let config = make(Vec::new())?;
    Ok(Arc::clone(CONFIG.get_or_init(|| config)))
}

/// The public roots and `extra`, with the ring provider.
fn make(extra: Vec<CertificateDer<'static>>) -> Result<Arc<ClientConfig>, String> {
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    for cert in extra {
        roots
            .add(cert)
            .map_err(|e| format!("not a usable CA certificate: {e}"))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}
