//! TLS for `wss`: the server's certificate, and how a client trusts it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{self, CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{RootCertStore, ServerConfig};

use crate::Error;

/// The ALPN protocol both ends offer: the upgrade is an HTTP/1.1 request.
const ALPN: &[u8] = b"http/1.1";

/// A `wss` listener's certificate chain and private key, ready to serve.
#[derive(Clone)]
pub struct ServerTls(Arc<ServerConfig>);

impl ServerTls {
    /// Reads the certificate chain (leaf first) from `cert` and the private key from `key`,
    /// both PEM, as `certbot` or `rcgen` write them.
    ///
    /// # Errors
    ///
    /// [`Error::Pem`] if a file cannot be read or holds no certificate or key,
    /// [`Error::Tls`] if the key does not fit the certificate.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Self, Error> {
        let chain = CertificateDer::pem_file_iter(cert)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|source| pem_error(cert, source))?;
        if chain.is_empty() {
            return Err(pem_error(cert, pem::Error::NoItemsFound));
        }
        let key = PrivateKeyDer::from_pem_file(key).map_err(|source| pem_error(key, source))?;
        Self::new(chain, key)
    }

    /// Serves `chain` (leaf first) with `key`.
    ///
    /// # Errors
    ///
    /// [`Error::Tls`] if the key does not fit the certificate.
    pub fn new(
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
    ) -> Result<Self, Error> {
        let mut config = ServerConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_no_client_auth()
            .with_single_cert(chain, key)?;
        config.alpn_protocols = vec![ALPN.to_vec()];
        Ok(Self(Arc::new(config)))
    }

    pub(crate) fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(Arc::clone(&self.0))
    }
}

impl fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerTls")
    }
}

fn pem_error(path: &Path, source: pem::Error) -> Error {
    Error::Pem {
        path: path.to_owned(),
        source,
    }
}

/// How a `wss` client trusts the server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verify {
    /// The web's certificate authorities (Mozilla's list, built in): for a relay with a
    /// certificate from a public CA.
    WebPkiRoots,
    /// A server whose chain leads to a certificate in this PEM file, valid for the server
    /// name. The file may hold a CA or the server's own self-signed certificate.
    CaFile(PathBuf),
    /// Any server. The connection is still encrypted, but anyone on the path can pose as the
    /// server; only for tests and trusted networks.
    Insecure,
}

/// The client side of TLS for `verify`.
pub(crate) fn client(verify: &Verify) -> Result<tokio_rustls::TlsConnector, Error> {
    let provider = provider();
    let algorithms = provider.signature_verification_algorithms;
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?;
    let mut config = match verify {
        Verify::WebPkiRoots => {
            let roots = RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        Verify::CaFile(path) => builder
            .with_root_certificates(ca_roots(path)?)
            .with_no_client_auth(),
        Verify::Insecure => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(algorithms)))
            .with_no_client_auth(),
    };
    config.alpn_protocols = vec![ALPN.to_vec()];
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// The TLS name of `host`.
pub(crate) fn server_name(host: &str) -> Result<ServerName<'static>, Error> {
    ServerName::try_from(host.to_owned()).map_err(|_| Error::ServerName(host.to_owned()))
}

/// Trust anchors from every certificate in a PEM file.
fn ca_roots(path: &Path) -> Result<RootCertStore, Error> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|source| pem_error(path, source))?;
    if certs.is_empty() {
        return Err(pem_error(path, pem::Error::NoItemsFound));
    }
    let mut roots = RootCertStore::empty();
    for cert in certs {
        roots.add(cert)?;
    }
    Ok(roots)
}

/// Accepts any certificate, but still checks the handshake's signatures: the server must
/// hold the key of the certificate it presents.
#[derive(Debug)]
struct AnyCertificate(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.supported_schemes()
    }
}

/// ring, chosen explicitly so that no process-wide default provider has to be installed.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(crypto::ring::default_provider())
}
