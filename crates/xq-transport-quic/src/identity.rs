//! The server's certificate and private key, generated once and kept on disk.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::Fingerprint;

/// File name of the PEM certificate chain inside an identity directory.
pub const CERT_FILE: &str = "cert.pem";
/// File name of the PEM private key inside an identity directory.
pub const KEY_FILE: &str = "key.pem";

/// A server's TLS identity: its certificate chain and private key.
///
/// Clients pin the [`fingerprint`](Self::fingerprint) of the certificate, so it must survive
/// restarts: [`load_or_generate`](Self::load_or_generate) keeps it in a directory.
#[derive(Debug)]
pub struct Identity {
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    fingerprint: Fingerprint,
}

impl Identity {
    /// Loads the identity kept in `dir`, or generates a self-signed one and stores it there.
    ///
    /// The directory holds [`CERT_FILE`] and [`KEY_FILE`]. When the certificate file is absent, a
    /// new self-signed certificate valid for `server_names` (DNS names or IP addresses) is
    /// generated, the directory is created if needed, and the key is written first, to a new file
    /// readable by the owner only (on Unix) that replaces any key file left there, so that a
    /// certificate on disk always has its key. When present, both files are loaded as they are,
    /// so an operator can replace them with a CA-signed chain.
    ///
    /// # Errors
    ///
    /// Fails if the files cannot be read, parsed or written, or if generation fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_transport_quic::Identity;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let first = Identity::load_or_generate(dir.path(), &["localhost"])?;
    /// let again = Identity::load_or_generate(dir.path(), &["localhost"])?;
    /// assert_eq!(first.fingerprint(), again.fingerprint());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_or_generate(
        dir: impl AsRef<Path>,
        server_names: &[&str],
    ) -> Result<Self, IdentityError> {
        let dir = dir.as_ref();
        let cert_path = dir.join(CERT_FILE);
        let key_path = dir.join(KEY_FILE);
        if cert_path.exists() {
            return Self::load(&cert_path, &key_path);
        }
        Self::generate(dir, &cert_path, &key_path, server_names)
    }

    /// A self-signed identity valid for `server_names`, kept in memory only: for a listener
    /// whose fingerprint need not survive a restart (a test's, a throwaway relay's), which
    /// leaves no key on disk.
    ///
    /// # Errors
    ///
    /// [`IdentityError::Generate`] if generation fails.
    pub fn ephemeral(server_names: &[&str]) -> Result<Self, IdentityError> {
        Ok(SelfSigned::new(server_names)?.identity)
    }

    /// The SHA-256 fingerprint of the end-entity certificate, which clients can pin.
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The certificate chain, end-entity certificate first, and its private key.
    pub(crate) fn into_parts(self) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
        (self.chain, self.key)
    }

    fn load(cert_path: &Path, key_path: &Path) -> Result<Self, IdentityError> {
        let read_error = |path: &Path| {
            let path = path.to_owned();
            move |source| IdentityError::Read { path, source }
        };
        let chain = CertificateDer::pem_file_iter(cert_path)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(read_error(cert_path))?;
        let Some(end_entity) = chain.first() else {
            return Err(read_error(cert_path)(pem::Error::NoItemsFound));
        };
        let fingerprint = Fingerprint::of_der(end_entity);
        let key = PrivateKeyDer::from_pem_file(key_path).map_err(read_error(key_path))?;
        Ok(Self {
            chain,
            key,
            fingerprint,
        })
    }

    fn generate(
        dir: &Path,
        cert_path: &Path,
        key_path: &Path,
        server_names: &[&str],
    ) -> Result<Self, IdentityError> {
        let generated = SelfSigned::new(server_names)?;
        let write_error = |path: &Path| {
            let path = path.to_owned();
            move |source| IdentityError::Write { path, source }
        };
        fs::create_dir_all(dir).map_err(write_error(dir))?;
        write_private(key_path, &generated.key_pem).map_err(write_error(key_path))?;
        fs::write(cert_path, &generated.cert_pem).map_err(write_error(cert_path))?;
        Ok(generated.identity)
    }
}

/// A newly generated self-signed identity, with its PEM forms for storing it.
struct SelfSigned {
    identity: Identity,
    cert_pem: String,
    key_pem: String,
}

impl SelfSigned {
    fn new(server_names: &[&str]) -> Result<Self, IdentityError> {
        let names: Vec<String> = server_names.iter().map(|&n| n.to_owned()).collect();
        let rcgen::CertifiedKey { cert, signing_key } = rcgen::generate_simple_self_signed(names)?;
        Ok(Self {
            identity: Identity {
                fingerprint: Fingerprint::of_der(cert.der()),
                chain: vec![cert.der().clone()],
                key: PrivatePkcs8KeyDer::from(signing_key.serialize_der()).into(),
            },
            cert_pem: cert.pem(),
            key_pem: signing_key.serialize_pem(),
        })
    }
}

/// Why an [`Identity`] could not be loaded, generated or stored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IdentityError {
    /// A certificate or key file could not be read or holds no usable PEM item.
    #[error("failed to read {}", path.display())]
    Read {
        /// The file that failed.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: pem::Error,
    },
    /// The directory, certificate or key could not be written.
    #[error("failed to write {}", path.display())]
    Write {
        /// The path that failed.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: io::Error,
    },
    /// The self-signed certificate could not be generated.
    #[error("failed to generate a certificate")]
    Generate(#[from] rcgen::Error),
}

/// Writes `contents` to a new file that only the owner can read, where the platform allows it.
fn write_private(path: &Path, contents: &str) -> io::Result<()> {
    // A file already there would keep its permissions, and whoever has it open would read the
    // new contents: it goes, and a new one is made in its place.
    match fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(contents.as_bytes())
}
