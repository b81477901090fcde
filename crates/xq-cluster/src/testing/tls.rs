//! A test server's TLS: a CA of its own, a server certificate for `127.0.0.1` and a client
//! certificate, all made fresh and written as PEM into the server's directory.

use std::path::Path;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};

use crate::{ClientCert, ClusterTls};

/// Writes the CA, the server's and a client's certificates and keys into `dir`; returns the
/// server's `tls` block (which makes it require a client certificate from the CA) and the
/// client's settings.
pub(super) fn write(dir: &Path) -> (String, ClusterTls) {
    let mut ca_params = CertificateParams::new(Vec::new()).expect("CA parameters");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("a CA key"))
        .expect("the CA signs itself");
    let issue = |name: &str, purpose: ExtendedKeyUsagePurpose| {
        let mut params = CertificateParams::new(vec![name.to_string()]).expect("parameters");
        params.extended_key_usages = vec![purpose];
        let key = KeyPair::generate().expect("a key");
        let cert = params.signed_by(&key, &ca).expect("the CA signs");
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = issue("127.0.0.1", ExtendedKeyUsagePurpose::ServerAuth);
    let (client_cert, client_key) = issue("xq-relay", ExtendedKeyUsagePurpose::ClientAuth);
    let write = |name: &str, pem: &str| {
        let path = dir.join(name);
        std::fs::write(&path, pem).expect("write a PEM file");
        path
    };
    let ca_path = write("ca.pem", &ca.pem());
    let server_cert = write("server.pem", &server_cert);
    let server_key = write("server-key.pem", &server_key);
    let config = format!(
        "tls {{\n  cert_file: {server_cert:?}\n  key_file: {server_key:?}\n  \
         ca_file: {ca_path:?}\n  verify: true\n}}\n"
    );
    let client = ClusterTls {
        ca: Some(ca_path),
        client: Some(ClientCert {
            cert: write("client.pem", &client_cert),
            key: write("client-key.pem", &client_key),
        }),
    };
    (config, client)
}
