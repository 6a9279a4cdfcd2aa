//! Registry icons for the gallery's cards. The window may load no remote image (its CSP), so the
//! core fetches an icon the listing names and hands the window a `data:` URL, under rules that
//! keep a hostile listing from using it: https only, never to this computer or its network by
//! address, no redirects, at most 128 KB, and only PNG, JPEG or WebP whose bytes say they are
//! (no SVG: it is a document, not a picture). An icon that breaks a rule is simply not shown.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use base64::Engine as _;

/// The largest icon read.
const MAX_ICON_BYTES: usize = 128 * 1024;
/// The most icons kept in memory.
const MAX_KEPT: usize = 500;

/// Icons fetched this run, by URL (`None`: it broke a rule or could not be fetched).
#[derive(Default)]
pub struct Icons(Mutex<HashMap<String, Option<String>>>);

impl Icons {
    /// The icon at `url` as a `data:` URL, fetched once.
    pub async fn get(&self, url: &str) -> Option<String> {
        if let Some(kept) = self.lock().get(url) {
            return kept.clone();
        }
        let fetched = fetch(url).await;
        let mut kept = self.lock();
        if kept.len() >= MAX_KEPT {
            kept.clear();
        }
        kept.insert(url.to_owned(), fetched.clone());
        fetched
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<String>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

async fn fetch(url: &str) -> Option<String> {
    let url = allowed(url)?;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .ok()?;
    let mut response = client.get(url).send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.ok()? {
        if bytes.len() + chunk.len() > MAX_ICON_BYTES {
            return None;
        }
        bytes.extend_from_slice(&chunk);
    }
    data_url(&bytes)
}

/// `url` when it is https to a host named by name or by a public address.
pub fn allowed(url: &str) -> Option<url::Url> {
    let parsed = url::Url::parse(url).ok()?;
    if parsed.scheme() != "https" || !parsed.username().is_empty() || parsed.password().is_some() {
        return None;
    }
    let public = match parsed.host()? {
        url::Host::Domain(d) => !d.eq_ignore_ascii_case("localhost") && !d.ends_with(".localhost"),
        url::Host::Ipv4(a) => is_public(IpAddr::V4(a)),
        url::Host::Ipv6(a) => is_public(IpAddr::V6(a)),
    };
    public.then_some(parsed)
}

fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => {
            !(a.is_loopback()
                || a.is_private()
                || a.is_link_local()
                || a.is_unspecified()
                || a.is_broadcast()
                || a.octets()[0] == 100 && (a.octets()[1] & 0xc0) == 64)
        }
        IpAddr::V6(a) => {
            let first = a.segments()[0];
            !(a.is_loopback()
                || a.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// A `data:` URL for `bytes` when they are a PNG, JPEG or WebP picture (by their first bytes).
pub fn data_url(bytes: &[u8]) -> Option<String> {
    let mime = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        "image/jpeg"
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        "image/webp"
    } else {
        return None;
    };
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    Some(format!("data:{mime};base64,{b64}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_to_a_public_host() {
        assert!(allowed("https://example.com/icon.png").is_some());
        assert!(allowed("https://93.184.216.34/i.png").is_some());
        for refused in [
            "http://example.com/icon.png",
            "https://localhost/i.png",
            "https://127.0.0.1/i.png",
            "https://10.0.0.1/i.png",
            "https://192.168.1.1/i.png",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/i.png",
            "https://[::1]/i.png",
            "https://[fd00::1]/i.png",
            "https://user:pw@example.com/i.png",
            "file:///etc/passwd",
            "data:image/png;base64,AAAA",
        ] {
            assert!(allowed(refused).is_none(), "{refused}");
        }
    }

    #[test]
    fn only_pictures_whose_bytes_say_so() {
        let png = b"\x89PNG\r\n\x1a\nrest";
        assert!(data_url(png).unwrap().starts_with("data:image/png;base64,"));
        assert!(
            data_url(&[0xff, 0xd8, 0xff, 0xe0])
                .unwrap()
                .starts_with("data:image/jpeg")
        );
        assert!(
            data_url(b"RIFF\0\0\0\0WEBPVP8 ")
                .unwrap()
                .starts_with("data:image/webp")
        );
        assert!(data_url(b"<svg onload=alert(1)>").is_none());
        assert!(data_url(b"<html>").is_none());
    }
}
