//! rustls configurations for both ends, with the ALPN and crypto provider they share.

use std::path::Path;
use std::sync::Arc;

use quinn::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::{self, PemObject};
use rustls::{ConfigBuilder, RootCertStore, WantsVerifier};

use crate::verify::PinVerifier;
use crate::{Error, Fingerprint, Identity, Verify};

/// The ALPN protocol both ends require, so that a QUIC peer of another protocol fails the TLS
/// handshake instead of reaching the stream.
const ALPN: &[u8] = b"xq/1";

/// The server side of TLS: the identity, TLS 1.3 only (QUIC requires it), and our ALPN.
pub(crate) fn server(identity: Identity) -> Result<QuicServerConfig, Error> {
    let (chain, key) = identity.into_parts();
    let mut tls = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    tls.alpn_protocols = vec![ALPN.to_vec()];
    // The provider is ring's default, which has the TLS 1.3 AES-128-GCM suite QUIC needs for its
    // initial packets.
    Ok(QuicServerConfig::try_from(tls).expect("ring provides the initial cipher suite"))
}

/// The client side of TLS for `verify`.
///
/// Also returns the pin verifier, if one is used, so that a failed handshake can report a
/// fingerprint mismatch as such.
pub(crate) fn client(
    verify: &Verify,
) -> Result<(QuicClientConfig, Option<Arc<PinVerifier>>), Error> {
    let provider = provider();
    let algorithms = provider.signature_verification_algorithms;
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?;
    let (mut tls, pin_verifier) = match verify {
        Verify::CaFile(path) => {
            let tls = builder
                .with_root_certificates(ca_roots(path)?)
                .with_no_client_auth();
            (tls, None)
        }
        Verify::Fingerprint(pin) => pinned(builder, Some(*pin), algorithms),
        Verify::Insecure => pinned(builder, None, algorithms),
    };
    tls.alpn_protocols = vec![ALPN.to_vec()];
    // See `server` for why this cannot fail.
    let quic = QuicClientConfig::try_from(tls).expect("ring provides the initial cipher suite");
    Ok((quic, pin_verifier))
}

/// Trust anchors from every certificate in a PEM file.
fn ca_roots(path: &Path) -> Result<RootCertStore, Error> {
    let ca_error = |source| Error::CaFile {
        path: path.to_owned(),
        source,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(ca_error)?;
    if certs.is_empty() {
        return Err(ca_error(pem::Error::NoItemsFound));
    }
    let mut roots = RootCertStore::empty();
    for cert in certs {
        roots.add(cert)?;
    }
    Ok(roots)
}

/// Trusts the certificate matching `pin`, or any certificate for `None`.
fn pinned(
    builder: ConfigBuilder<rustls::ClientConfig, WantsVerifier>,
    pin: Option<Fingerprint>,
    algorithms: WebPkiSupportedAlgorithms,
) -> (rustls::ClientConfig, Option<Arc<PinVerifier>>) {
    let verifier = Arc::new(PinVerifier::new(pin, algorithms));
    let tls = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier.clone())
        .with_no_client_auth();
    (tls, Some(verifier))
}

/// ring, chosen explicitly so that no process-wide default provider has to be installed.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}
