//! Which destination addresses are not on the public internet, in two kinds:
//! - **local**: this machine (loopback) and private networks (RFC 1918, shared CGNAT,
//!   unique-local). A plugin reaches one only through a grant that names the address itself
//!   (or `localhost`), or in a call whose fetch of it the user approved; never through a `*`
//!   grant or a host name (ADR 0007).
//! - **special**: link-local (cloud metadata lives there), unspecified, IETF protocol,
//!   multicast, broadcast and reserved ranges. No plugin reaches one, whatever it was granted.
//!
//! Addresses that embed an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo)
//! are judged by that address: a relay or translator on the path would deliver them there.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A non-public range an address lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// What the range is, for messages: "a private address (10.0.0.0/8)".
    pub why: &'static str,
    /// This machine or a private network (see the module docs), rather than a special range.
    pub local: bool,
}

/// The non-public range `ip` lies in, or `None` for a public address.
pub fn range_of(ip: IpAddr) -> Option<Range> {
    match ip {
        IpAddr::V4(v4) => range_v4(v4),
        IpAddr::V6(v6) => range_v6(v6),
    }
}

/// Why `ip` is not public, or `None` for a public address.
pub fn blocked_reason(ip: IpAddr) -> Option<&'static str> {
    range_of(ip).map(|r| r.why)
}

const fn local(why: &'static str) -> Option<Range> {
    Some(Range { why, local: true })
}

const fn special(why: &'static str) -> Option<Range> {
    Some(Range { why, local: false })
}

fn range_v4(ip: Ipv4Addr) -> Option<Range> {
    let [a, b, c, _] = ip.octets();
    match (a, b, c) {
        (0, _, _) => special("an unspecified address (0.0.0.0/8)"),
        (10, _, _) => local("a private address (10.0.0.0/8)"),
        (100, 64..=127, _) => local("a shared CGNAT address (100.64.0.0/10)"),
        (127, _, _) => local("a loopback address (127.0.0.0/8, this machine)"),
        (169, 254, _) => {
            special("a link-local address (169.254.0.0/16, where cloud metadata lives)")
        }
        (172, 16..=31, _) => local("a private address (172.16.0.0/12)"),
        (192, 0, 0) => special("an IETF protocol address (192.0.0.0/24)"),
        (192, 168, _) => local("a private address (192.168.0.0/16)"),
        (224..=239, _, _) => special("a multicast address (224.0.0.0/4)"),
        (255, 255, 255) if ip.is_broadcast() => special("the broadcast address"),
        (240..=255, _, _) => special("a reserved address (240.0.0.0/4)"),
        _ => None,
    }
}

fn range_v6(ip: Ipv6Addr) -> Option<Range> {
    if ip.is_unspecified() {
        return special("an unspecified address (::)");
    }
    if ip.is_loopback() {
        return local("the loopback address (::1, this machine)");
    }
    // Of several carried addresses (Teredo), the most restricted one decides.
    let carried: Vec<Range> = embedded_v4(ip).into_iter().filter_map(range_v4).collect();
    if let Some(found) = carried.iter().find(|r| !r.local).or(carried.first()) {
        return Some(*found);
    }
    let first = ip.segments()[0];
    if first & 0xffc0 == 0xfe80 {
        special("a link-local address (fe80::/10)")
    } else if first & 0xffc0 == 0xfec0 {
        special("a site-local address (fec0::/10)")
    } else if first & 0xfe00 == 0xfc00 {
        local("a unique-local address (fc00::/7)")
    } else if first & 0xff00 == 0xff00 {
        special("a multicast address (ff00::/8)")
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
            ("127.0.0.1", false),
            ("127.255.0.9", false),
            ("::1", false),
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
            ("::ffff:127.0.0.1", false),
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
            proptest::prop_assert!(range_v4(v4).is_some());
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

    #[test]
    fn local_ranges_are_told_from_special_ones() {
        // (address, local): local ones may be reached by a named grant or an approved fetch.
        for (text, is_local) in [
            ("127.0.0.1", true),
            ("::1", true),
            ("10.1.2.3", true),
            ("172.20.0.1", true),
            ("192.168.0.10", true),
            ("100.64.0.1", true),
            ("fd00::1", true),
            ("::ffff:192.168.0.1", true),
            ("169.254.169.254", false),
            ("::ffff:169.254.169.254", false),
            ("fe80::1", false),
            ("0.0.0.0", false),
            ("::", false),
            ("224.0.0.1", false),
            ("255.255.255.255", false),
            // Teredo whose server is private but whose client is link-local: the stricter wins.
            ("2001:0:c0a8:0101::5601:5601", false),
        ] {
            let ip: IpAddr = text.parse().unwrap();
            let range = range_of(ip).unwrap_or_else(|| panic!("{text} counted as public"));
            assert_eq!(range.local, is_local, "{text}: {range:?}");
        }
        assert_eq!(range_of("8.8.8.8".parse().unwrap()), None);
    }
}
