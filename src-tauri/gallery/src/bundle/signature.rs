//! A bundle's PKCS#7 signature, checked: the signed attributes' message digest is the SHA-256
//! of the zip, and the signer's certificate's RSA key signed those attributes. What that proves
//! is that whoever holds that certificate's key made this exact file. Who that is, the
//! certificate's subject, is only its own word unless its chain (with the intermediates the
//! signature carries) leads to a certificate authority this computer trusts, for code signing,
//! valid now: then the authority vouches for the name, and Switchboard says which. A broken
//! signature is an error, never read as unsigned.

use cms::content_info::ContentInfo;
use cms::signed_data::{SignedData, SignerInfo};
use der::{Decode, Encode};
use rsa::pkcs1v15::{Signature, VerifyingKey};
use rsa::signature::Verifier;
use serde::Serialize;
use sha2::{Digest, Sha256};
use switchboard_base::Result;
use ts_rs::TS;
use x509_cert::Certificate;

use super::archive::bad;
use crate::text;

mod chain;

pub use chain::anchors;

const SIGNED_DATA: &str = "1.2.840.113549.1.7.2";
const MESSAGE_DIGEST: &str = "1.2.840.113549.1.9.4";
const SHA256: &str = "2.16.840.1.101.3.4.2.1";
const COMMON_NAME: &str = "2.5.4.3";

/// Who signed a bundle, as the signature's certificate says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "BundleSigner")]
pub struct Signer {
    /// The certificate's subject common name.
    pub publisher: String,
    pub issuer: String,
    /// Its issuer is itself: nobody else vouches for the name.
    pub self_signed: bool,
    /// The trusted certificate authority its chain leads to, for code signing, valid now; none
    /// when it leads to no authority this computer trusts (the issuer's name is then only the
    /// certificate's word).
    pub vouched_for_by: Option<String>,
    /// SHA-256 of the certificate, hex.
    pub fingerprint: String,
}

/// Checks `der` as a detached signature of `zip`; the signer when it holds, with the
/// authority (among the system's trusted ones) that vouches for its name.
pub fn verify(zip: &[u8], der: &[u8]) -> Result<Signer> {
    verify_with(zip, der, chain::system_roots())
}

/// [`verify`] with the certificate authorities to trust given.
pub fn verify_with(
    zip: &[u8],
    der: &[u8],
    roots: &[rustls_pki_types::TrustAnchor<'static>],
) -> Result<Signer> {
    let broken = |why: &str| bad(format!("Its signature does not hold: {why}."));
    let info = ContentInfo::from_der(der).map_err(|_| broken("it is not PKCS#7"))?;
    if info.content_type.to_string() != SIGNED_DATA {
        return Err(broken("it is not signed data"));
    }
    let signed: SignedData = info
        .content
        .decode_as()
        .map_err(|_| broken("its signed data cannot be read"))?;
    let signer = signed
        .signer_infos
        .0
        .iter()
        .next()
        .ok_or_else(|| broken("it names no signer"))?;
    let mut carried = signed
        .certificates
        .iter()
        .flat_map(|set| set.0.iter())
        .filter_map(|c| match c {
            cms::cert::CertificateChoices::Certificate(c) => Some(c.clone()),
            _ => None,
        });
    let cert = carried
        .next()
        .ok_or_else(|| broken("it carries no certificate"))?;
    let intermediates: Vec<Certificate> = carried.collect();
    if signer.digest_alg.oid.to_string() != SHA256 {
        return Err(broken("its digest is not SHA-256"));
    }
    check_digest(signer, zip).map_err(broken)?;
    let signed_bytes =
        signed_attributes(der).ok_or_else(|| broken("its attributes cannot be read"))?;
    check_signature(signer, &cert, &signed_bytes).map_err(broken)?;
    let vouched_for_by = chain::vouched_for_by(&cert, &intermediates, roots);
    Ok(signer_of(&cert, vouched_for_by))
}

/// The signed attributes say the zip's SHA-256.
fn check_digest(signer: &SignerInfo, zip: &[u8]) -> std::result::Result<(), &'static str> {
    let attrs = signer
        .signed_attrs
        .as_ref()
        .ok_or("it has no signed attributes")?;
    let digest = attrs
        .iter()
        .find(|a| a.oid.to_string() == MESSAGE_DIGEST)
        .and_then(|a| a.values.iter().next())
        .and_then(|v| v.decode_as::<der::asn1::OctetString>().ok())
        .ok_or("it has no message digest")?;
    if digest.as_bytes() == Sha256::digest(zip).as_slice() {
        Ok(())
    } else {
        Err("the file is not what was signed")
    }
}

/// The first signer's signed attributes as they were signed: their bytes in the file, tagged
/// as a SET. Decoding and encoding them again would sort them (DER's rule for a SET), and a
/// signer that did not sort them signed other bytes.
fn signed_attributes(der: &[u8]) -> Option<Vec<u8>> {
    use der::asn1::AnyRef;
    let content_info = AnyRef::from_der(der).ok()?;
    let explicit = *children(content_info)?.get(1)?;
    let signed_data = AnyRef::from_der(explicit.value()).ok()?;
    let signer_infos = *children(signed_data)?.last()?;
    let signer = *children(signer_infos)?.first()?;
    let attrs = *children(signer)?.get(3)?;
    let implicit_zero = der::Tag::ContextSpecific {
        constructed: true,
        number: der::TagNumber::N0,
    };
    if der::Tagged::tag(&attrs) != implicit_zero {
        return None;
    }
    let mut out = Vec::new();
    der::Header::new(der::Tag::Set, attrs.value().len())
        .ok()?
        .encode_to_vec(&mut out)
        .ok()?;
    out.extend_from_slice(attrs.value());
    Some(out)
}

/// The elements inside a constructed value.
fn children(any: der::asn1::AnyRef<'_>) -> Option<Vec<der::asn1::AnyRef<'_>>> {
    use der::{Reader, SliceReader};
    let mut r = SliceReader::new(any.value()).ok()?;
    let mut out = Vec::new();
    while !r.is_finished() {
        out.push(r.decode().ok()?);
    }
    Some(out)
}

/// The certificate's RSA key signed `signed_bytes`.
fn check_signature(
    signer: &SignerInfo,
    cert: &Certificate,
    signed_bytes: &[u8],
) -> std::result::Result<(), &'static str> {
    let spki = &cert.tbs_certificate.subject_public_key_info;
    let key_der = spki.to_der().map_err(|_| "its key cannot be read")?;
    let key = <rsa::RsaPublicKey as rsa::pkcs8::DecodePublicKey>::from_public_key_der(&key_der)
        .map_err(|_| "its key is not an RSA key")?;
    let signature = Signature::try_from(signer.signature.as_bytes())
        .map_err(|_| "its signature cannot be read")?;
    VerifyingKey::<Sha256>::new(key)
        .verify(signed_bytes, &signature)
        .map_err(|_| "the certificate's key did not make it")
}

/// A name's common name, as written (not yet made safe to show).
fn common_name(name: &x509_cert::name::Name) -> String {
    name.0
        .iter()
        .flat_map(|rdn| rdn.0.iter())
        .find(|atv| atv.oid.to_string() == COMMON_NAME)
        .and_then(|atv| {
            der::asn1::Utf8StringRef::try_from(&atv.value)
                .map(|s| s.as_str().to_owned())
                .or_else(|_| {
                    der::asn1::PrintableStringRef::try_from(&atv.value)
                        .map(|s| s.as_str().to_owned())
                })
                .ok()
        })
        .unwrap_or_else(|| "(no name)".to_owned())
}

fn signer_of(cert: &Certificate, vouched_for_by: Option<String>) -> Signer {
    let cn = common_name;
    let tbs = &cert.tbs_certificate;
    let fingerprint = cert
        .to_der()
        .map(|d| {
            Sha256::digest(d)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        })
        .unwrap_or_default();
    Signer {
        publisher: text::shown(&cn(&tbs.subject), text::SHORT),
        issuer: text::shown(&cn(&tbs.issuer), text::SHORT),
        self_signed: tbs.subject == tbs.issuer,
        vouched_for_by: vouched_for_by.map(|n| text::shown(&n, text::SHORT)),
        fingerprint,
    }
}
