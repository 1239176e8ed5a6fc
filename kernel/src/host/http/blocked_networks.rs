//! Which destination addresses no plugin may reach, whatever hosts it was granted: private,
//! link-local (cloud metadata lives there), shared CGNAT, unique-local, unspecified, multicast
//! and broadcast ranges. Loopback stays reachable: tests and local model servers use it.
//! Addresses that embed an IPv4 address (IPv4-mapped, NAT64, 6to4) are judged by that address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` may not be reached, or `None` when it may.
pub fn blocked_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => blocked_v4(v4),
        IpAddr::V6(v6) => blocked_v6(v6),
    }
}

fn blocked_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    match (a, b, c) {
        (0, _, _) => Some("an unspecified address (0.0.0.0/8)"),
        (10, _, _) => Some("a private address (10.0.0.0/8)"),
        (100, 64..=127, _) => Some("a shared CGNAT address (100.64.0.0/10)"),
        (127, _, _) => None,
        (169, 254, _) => Some("a link-local address (169.254.0.0/16, where cloud metadata lives)"),
        (172, 16..=31, _) => Some("a private address (172.16.0.0/12)"),
        (192, 0, 0) => Some("an IETF protocol address (192.0.0.0/24)"),
        (192, 168, _) => Some("a private address (192.168.0.0/16)"),
        (224..=239, _, _) => Some("a multicast address (224.0.0.0/4)"),
        (255, 255, 255) if ip.is_broadcast() => Some("the broadcast address"),
        (240..=255, _, _) => Some("a reserved address (240.0.0.0/4)"),
        _ => None,
    }
}

fn blocked_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = embedded_v4(ip) {
        return blocked_v4(v4);
    }
    let first = ip.segments()[0];
    if ip.is_unspecified() {
        Some("an unspecified address (::)")
    } else if ip.is_loopback() {
        None
    } else if first & 0xffc0 == 0xfe80 {
        Some("a link-local address (fe80::/10)")
    } else if first & 0xffc0 == 0xfec0 {
        Some("a site-local address (fec0::/10)")
    } else if first & 0xfe00 == 0xfc00 {
        Some("a unique-local address (fc00::/7)")
    } else if first & 0xff00 == 0xff00 {
        Some("a multicast address (ff00::/8)")
    } else {
        None
    }
}

/// The IPv4 address carried by an IPv4-mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) or
/// 6to4 (`2002::/16`) address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = ip.segments();
    let from = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(from(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return Some(from(s[1], s[2]));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_addresses() {
        // (address, reachable)
        let cases = [
            ("127.0.0.1", true),
            ("127.255.0.9", true),
            ("::1", true),
            ("8.8.8.8", true),
            ("1.1.1.1", true),
            ("2606:4700:4700::1111", true),
            ("172.15.255.255", true),
            ("172.32.0.1", true),
            ("100.63.255.255", true),
            ("100.128.0.1", true),
            ("192.0.2.1", true),
            ("10.0.0.1", false),
            ("10.255.255.255", false),
            ("172.16.0.1", false),
            ("172.31.255.254", false),
            ("192.168.1.1", false),
            ("169.254.169.254", false),
            ("169.254.0.1", false),
            ("100.64.0.1", false),
            ("100.127.255.255", false),
            ("0.0.0.0", false),
            ("0.1.2.3", false),
            ("192.0.0.192", false),
            ("224.0.0.1", false),
            ("255.255.255.255", false),
            ("240.0.0.1", false),
            ("::", false),
            ("fe80::1", false),
            ("febf::1", false),
            ("fec0::1", false),
            ("fc00::1", false),
            ("fd12:3456::1", false),
            ("ff02::1", false),
            ("::ffff:10.0.0.1", false),
            ("::ffff:169.254.169.254", false),
            ("::ffff:127.0.0.1", true),
            ("::ffff:8.8.8.8", true),
            ("64:ff9b::a9fe:a9fe", false),
            ("64:ff9b::808:808", true),
            ("2002:c0a8:0101::1", false),
            ("2002:0808:0808::1", true),
        ];
        for (text, reachable) in cases {
            let ip: IpAddr = text.parse().unwrap();
            let reason = blocked_reason(ip);
            assert_eq!(reason.is_none(), reachable, "{text}: {reason:?}");
        }
    }

    #[test]
    fn reasons_name_the_range() {
        let reason = |t: &str| blocked_reason(t.parse().unwrap()).unwrap();
        assert!(reason("169.254.169.254").contains("metadata"));
        assert!(reason("10.1.2.3").contains("10.0.0.0/8"));
        assert!(reason("100.100.0.1").contains("CGNAT"));
        assert!(reason("fd00::1").contains("unique-local"));
    }
}
