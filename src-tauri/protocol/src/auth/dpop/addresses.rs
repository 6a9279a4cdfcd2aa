//! Which addresses a sign-in's own HTTP requests may reach, the rule rmcp applies to its own: a
//! public address always; a private one only for a server that is itself on a private address,
//! and a loopback one only for a server on loopback; link-local and the other reserved ranges
//! (a cloud's metadata service among them) never. Names are resolved here and only allowed
//! addresses are dialled, so a name that resolves inward cannot carry a request there.

use std::net::{IpAddr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Public,
    Private,
    Loopback,
    Reserved,
}

fn class(ip: IpAddr) -> Class {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            if v4.is_loopback() {
                Class::Loopback
            } else if v4.is_private() || (o[0] == 100 && (64..=127).contains(&o[1])) {
                Class::Private
            } else if v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || o[0] >= 240
            {
                Class::Reserved
            } else {
                Class::Public
            }
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return class(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            if v6.is_loopback() {
                Class::Loopback
            } else if first & 0xfe00 == 0xfc00 {
                Class::Private
            } else if v6.is_unspecified() || v6.is_multicast() || first & 0xffc0 == 0xfe80 {
                Class::Reserved
            } else {
                Class::Public
            }
        }
    }
}

/// The addresses requests made on behalf of the server at one URL may reach.
#[derive(Debug, Clone, Copy)]
pub struct AddressPolicy {
    server: Class,
}

impl AddressPolicy {
    /// The policy for the server at `url`.
    pub fn for_server(url: &url::Url) -> Self {
        let server = match url.host() {
            Some(url::Host::Ipv4(ip)) => class(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => class(IpAddr::V6(ip)),
            Some(url::Host::Domain(d)) if d == "localhost" || d.ends_with(".localhost") => {
                Class::Loopback
            }
            _ => Class::Public,
        };
        Self { server }
    }

    /// Whether `ip` may be reached.
    pub fn allows(&self, ip: IpAddr) -> bool {
        match class(ip) {
            Class::Public => true,
            Class::Reserved => false,
            other => other == self.server,
        }
    }

    /// Whether `url` may be requested: its host, when an address, is allowed (a name is checked
    /// when it is resolved).
    pub fn allows_url(&self, url: &url::Url) -> bool {
        match url.host() {
            Some(url::Host::Ipv4(ip)) => self.allows(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => self.allows(IpAddr::V6(ip)),
            Some(url::Host::Domain(_)) => true,
            None => false,
        }
    }
}

impl Resolve for AddressPolicy {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = *self;
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let allowed: Vec<SocketAddr> = found.filter(|a| policy.allows(a.ip())).collect();
            if allowed.is_empty() {
                return Err(format!(
                    "{} resolves to no address a sign-in for this server may reach",
                    name.as_str()
                )
                .into());
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(url: &str) -> AddressPolicy {
        AddressPolicy::for_server(&url::Url::parse(url).unwrap())
    }

    #[test]
    fn a_public_server_reaches_public_addresses_only() {
        let p = policy("https://mcp.example.com/mcp");
        assert!(p.allows("93.184.216.34".parse().unwrap()));
        for inward in [
            "127.0.0.1",
            "10.0.0.9",
            "192.168.1.1",
            "169.254.169.254",
            "::1",
        ] {
            assert!(!p.allows(inward.parse().unwrap()), "{inward}");
        }
        assert!(!p.allows_url(&url::Url::parse("http://169.254.169.254/token").unwrap()));
    }

    #[test]
    fn a_server_on_loopback_or_a_private_network_reaches_its_own_kind() {
        let local = policy("http://localhost:3000/mcp");
        assert!(local.allows("127.0.0.1".parse().unwrap()));
        assert!(!local.allows("10.0.0.9".parse().unwrap()));
        let corp = policy("http://10.1.2.3/mcp");
        assert!(corp.allows("10.0.0.9".parse().unwrap()));
        assert!(!corp.allows("127.0.0.1".parse().unwrap()));
        assert!(!corp.allows("169.254.169.254".parse().unwrap()));
    }

    #[tokio::test]
    async fn a_name_resolving_inward_is_not_dialled_for_a_public_server() {
        let p = policy("https://mcp.example.com/mcp");
        let name: Name = "localhost".parse().unwrap();
        assert!(p.resolve(name).await.is_err());
        let local = policy("http://localhost:3000/mcp");
        let name: Name = "localhost".parse().unwrap();
        assert!(local.resolve(name).await.is_ok());
    }
}
