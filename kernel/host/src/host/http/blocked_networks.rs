//! Which destination addresses no plugin may reach, whatever hosts it was granted: private,
//! link-local (cloud metadata lives there), shared CGNAT, unique-local, unspecified, multicast
//! and broadcast ranges. Loopback stays reachable: tests and local model servers use it.
//! Addresses that embed an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo)
//! are judged by that address: a relay or translator on the path would deliver them there.

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
    if ip.is_unspecified() {
        return Some("an unspecified address (::)");
    }
    if ip.is_loopback() {
        return None;
    }
    for v4 in embedded_v4(ip) {
        if let Some(why) = blocked_v4(v4) {
            return Some(why);
        }
    }
    let first = ip.segments()[0];
    if first & 0xffc0 == 0xfe80 {
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

/// The IPv4 addresses an IPv6 address carries: IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-compatible (`::a.b.c.d`, deprecated but still routed by some stacks), NAT64
/// (`64:ff9b::/96` and the local-use `64:ff9b:1::/48`), 6to4 (`2002:AABB:CCDD::/48`) and
/// Teredo (`2001:0::/32`: the server in bits 32–63, the client in the last 32 bits, inverted).
fn embedded_v4(ip: Ipv6Addr) -> Vec<Ipv4Addr> {
    let s = ip.segments();
    let from = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if let Some(v4) = ip.to_ipv4_mapped() {
        return vec![v4];
    }
    if s[..6] == [0, 0, 0, 0, 0, 0] {
        // `::` and `::1` are handled before; `::a.b.c.d` is IPv4-compatible.
        return vec![from(s[6], s[7])];
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return vec![from(s[6], s[7])];
    }
    if s[..2] == [0x64, 0xff9b] && s[2] == 1 {
        // RFC 8215 leaves the embedding to the operator; the common /96 form puts the address
        // last, the /48 form (RFC 6052) splits it around the `u` octet at bits 64–71.
        let [_, _, _, _, _, _, a, b, _, c, d, _, _, _, _, _] = ip.octets();
        let mut carried = vec![from(s[6], s[7])];
        if a != 0 {
            carried.push(Ipv4Addr::new(a, b, c, d));
        }
        return carried;
    }
    if s[0] == 0x2002 {
        return vec![from(s[1], s[2])];
    }
    if s[..2] == [0x2001, 0] {
        return vec![from(s[2], s[3]), from(!s[6], !s[7])];
    }
    Vec::new()
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
            // IPv4-compatible (`::a.b.c.d`).
            ("::10.0.0.1", false),
            ("::169.254.169.254", false),
            ("::192.168.0.1", false),
            ("::8.8.8.8", true),
            // NAT64, well-known and local-use prefixes.
            ("64:ff9b::10.1.2.3", false),
            ("64:ff9b::192.168.1.1", false),
            ("64:ff9b:1::a9fe:a9fe", false),
            ("64:ff9b:1::808:808", true),
            ("64:ff9b:1:c0a8:1:100::", false),
            // 6to4 with the IPv4 address in bits 16–47.
            ("2002:a9fe:a9fe::", false),
            ("2002:0a00:0001:1::1", false),
            // Teredo: server 65.54.227.120; client 10.0.0.1 inverted is f5ff:fffe.
            ("2001:0:4136:e378:8000:63bf:f5ff:fffe", false),
            // Teredo with a private server address.
            ("2001:0:c0a8:0101::1", false),
            // Teredo with public server and client (8.8.8.8 inverted is f7f7:f7f7).
            ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", true),
            ("2001:db8::1", true),
        ];
        for (text, reachable) in cases {
            let ip: IpAddr = text.parse().unwrap();
            let reason = blocked_reason(ip);
            assert_eq!(reason.is_none(), reachable, "{text}: {reason:?}");
        }
    }

    proptest::proptest! {
        /// Every private IPv4 address stays refused in each IPv6 form that carries it.
        #[test]
        fn embedded_private_addresses_are_refused(host in 0u32..(1 << 24), range in 0usize..4) {
            let base: [u32; 4] = [0x0a00_0000, 0xa9fe_0000, 0xc0a8_0000, 0xac10_0000];
            let mask: [u32; 4] = [0x00ff_ffff, 0x0000_ffff, 0x0000_ffff, 0x000f_ffff];
            let v4 = Ipv4Addr::from(base[range] | (host & mask[range]));
            proptest::prop_assert!(blocked_v4(v4).is_some());
            let [a, b, c, d] = v4.octets();
            let bits = u32::from(v4);
            let (hi, lo) = ((bits >> 16) as u16, bits as u16);
            let forms = [
                v4.to_ipv6_mapped(),
                Ipv6Addr::new(0, 0, 0, 0, 0, 0, hi, lo),
                Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, hi, lo),
                Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, hi, lo),
                Ipv6Addr::new(0x2002, hi, lo, 0, 0, 0, 0, 1),
                Ipv6Addr::new(0x2001, 0, 0x4136, 0xe378, 0x8000, 0x63bf, !hi, !lo),
                Ipv6Addr::new(0x2001, 0, hi, lo, 0, 0, 0, 1),
            ];
            for ip in forms {
                proptest::prop_assert!(blocked_reason(IpAddr::V6(ip)).is_some(), "{ip} ({a}.{b}.{c}.{d})");
            }
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
