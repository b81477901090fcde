//! How a client decides to trust the server's certificate.

use std::path::PathBuf;
use std::sync::OnceLock;

use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{self, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};

use crate::Fingerprint;

/// How a client verifies the server. There is no default: skipping verification must be asked
/// for by name.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verify {
    /// Trust a server whose chain leads to a certificate in this PEM file, and whose certificate
    /// is valid for the server name. The file may hold a CA or the server's own self-signed
    /// certificate.
    CaFile(PathBuf),
    /// Trust only the server whose end-entity certificate has this SHA-256 fingerprint. Names,
    /// issuers and expiry are not checked: the pin alone identifies the server.
    Fingerprint(Fingerprint),
    /// Trust any server. The connection is still encrypted, but anyone on the path can pose as
    /// the server; use it only for tests and trusted networks.
    Insecure,
}

/// Accepts the server certificate if it matches a pin, or any certificate when there is no pin.
///
/// Either way the handshake signatures are verified, so the server must hold the private key of
/// the certificate it presents: a pin cannot be satisfied by replaying a certificate.
#[derive(Debug)]
pub(crate) struct PinVerifier {
    pin: Option<Fingerprint>,
    algorithms: WebPkiSupportedAlgorithms,
    /// The fingerprint of a rejected certificate, so that a failed handshake can say why.
    rejected: OnceLock<Fingerprint>,
}

impl PinVerifier {
    /// Creates a verifier for `pin`, or one that accepts any certificate for `None`.
    pub(crate) fn new(pin: Option<Fingerprint>, algorithms: WebPkiSupportedAlgorithms) -> Self {
        Self {
            pin,
            algorithms,
            rejected: OnceLock::new(),
        }
    }

    /// The fingerprint of the certificate this verifier rejected, if it rejected one.
    pub(crate) fn rejected(&self) -> Option<Fingerprint> {
        self.rejected.get().copied()
    }
}

impl ServerCertVerifier for PinVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(pin) = self.pin else {
            return Ok(ServerCertVerified::assertion());
        };
        let found = Fingerprint::of_der(end_entity);
        if found == pin {
            Ok(ServerCertVerified::assertion())
        } else {
            // Only the first rejection matters: a handshake presents one certificate.
            let _ = self.rejected.set(found);
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}
