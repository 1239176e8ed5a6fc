//! Cheap checks on the first bytes of a `.wasm` file, so a wrong file gets a precise message
//! before the compiler sees it.

const MAGIC: &[u8; 4] = b"\0asm";
const CORE_MODULE_VERSION: [u8; 4] = [0x01, 0x00, 0x00, 0x00];
/// Layer 1 (component), any encoding version.
const COMPONENT_LAYER: [u8; 2] = [0x01, 0x00];

/// What the header says the bytes are.
#[derive(Debug, PartialEq, Eq)]
pub enum WasmKind {
    Component,
    CoreModule,
    NotWasm,
    Truncated,
}

pub fn sniff(bytes: &[u8]) -> WasmKind {
    if bytes.len() < 8 {
        return if MAGIC.starts_with(&bytes[..bytes.len().min(4)]) && !bytes.is_empty() {
            WasmKind::Truncated
        } else {
            WasmKind::NotWasm
        };
    }
    if &bytes[..4] != MAGIC {
        return WasmKind::NotWasm;
    }
    if bytes[4..8] == CORE_MODULE_VERSION {
        return WasmKind::CoreModule;
    }
    if bytes[6..8] == COMPONENT_LAYER {
        return WasmKind::Component;
    }
    WasmKind::NotWasm
}

/// A message for bytes that are not a component, or `None` when they look like one.
pub fn not_a_component_reason(bytes: &[u8]) -> Option<String> {
    match sniff(bytes) {
        WasmKind::Component => None,
        WasmKind::CoreModule => Some(
            "is a core WebAssembly module, not a component; build it for wasm32-wasip2 (or wrap it with `wasm-tools component new`)"
                .to_string(),
        ),
        WasmKind::NotWasm => Some("is not a WebAssembly file (bad magic number)".to_string()),
        WasmKind::Truncated => Some("is truncated: too short to be a WebAssembly file".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn classifies_headers() {
        assert_eq!(sniff(b"\0asm\x01\0\0\0rest"), WasmKind::CoreModule);
        assert_eq!(sniff(b"\0asm\x0d\0\x01\0rest"), WasmKind::Component);
        assert_eq!(sniff(b"\0as"), WasmKind::Truncated);
        assert_eq!(sniff(b"hello world"), WasmKind::NotWasm);
        assert_eq!(sniff(b""), WasmKind::NotWasm);
    }

    proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = not_a_component_reason(&bytes);
        }
    }
}
