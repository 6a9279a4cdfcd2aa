//! Whether a certificate authority vouches for a bundle signer's name: the signer's certificate,
//! through the intermediates its signature carries, leads to a trusted root, is valid now, and
//! is for code signing (the purpose macOS, Windows and the mcpb CLI ask of a bundle's signer).
//! The trusted roots are the system's, read once, where `SSL_CERT_FILE`/`SSL_CERT_DIR` can
//! point elsewhere as for every other TLS program.

use std::sync::OnceLock;

use der::Encode;
use rustls_pki_types::{CertificateDer, TrustAnchor, UnixTime};
use x509_cert::Certificate;

/// id-kp-codeSigning (1.3.6.1.5.5.7.3.3), as the bytes of its OID.
const CODE_SIGNING: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03];

/// The system's trusted certificate authorities; none where they cannot be read (every
/// signer is then said to be unvouched for, never the other way round).
pub fn system_roots() -> &'static [TrustAnchor<'static>] {
    static ROOTS: OnceLock<Vec<TrustAnchor<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        if !found.errors.is_empty() {
            tracing::warn!(
                errors = found.errors.len(),
                "some trusted certificates were not read"
            );
        }
        anchors(&found.certs)
    })
}

/// Trust anchors made of certificates; those that cannot be read are left out.
pub fn anchors(certs: &[CertificateDer<'_>]) -> Vec<TrustAnchor<'static>> {
    certs
        .iter()
        .filter_map(|c| webpki::anchor_from_trusted_cert(c).ok())
        .map(|a| a.to_owned())
        .collect()
}

/// The name of the trusted authority that vouches for `cert`, if one does.
pub fn vouched_for_by(
    cert: &Certificate,
    intermediates: &[Certificate],
    roots: &[TrustAnchor<'_>],
) -> Option<String> {
    let leaf = CertificateDer::from(cert.to_der().ok()?);
    let leaf = webpki::EndEntityCert::try_from(&leaf).ok()?;
    let intermediates: Vec<CertificateDer<'static>> = intermediates
        .iter()
        .filter_map(|c| c.to_der().ok().map(CertificateDer::from))
        .collect();
    let path = leaf
        .verify_for_usage(
            webpki::ALL_VERIFICATION_ALGS,
            roots,
            &intermediates,
            UnixTime::now(),
            webpki::KeyUsage::required(CODE_SIGNING),
            None,
            None,
        )
        .ok()?;
    Some(anchor_name(path.anchor()))
}

/// An anchor's common name (its subject is stored without the outer SEQUENCE).
fn anchor_name(anchor: &TrustAnchor<'_>) -> String {
    let inner: &[u8] = anchor.subject.as_ref();
    let mut name = Vec::new();
    let wrapped = der::Header::new(der::Tag::Sequence, inner.len())
        .and_then(|h| h.encode_to_vec(&mut name))
        .map(|_| name.extend_from_slice(inner));
    wrapped
        .ok()
        .and_then(|()| <x509_cert::name::Name as der::Decode>::from_der(&name).ok())
        .map(|n| super::common_name(&n))
        .unwrap_or_else(|| "(no name)".to_owned())
}
