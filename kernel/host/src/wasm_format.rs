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

/// Why the component cannot run here when it was built with the component-model async ABI
/// (async-lifted exports, async-lowered imports, `task.return`, streams, futures, waitable
/// sets…), which this Reasonix's engine does not enable; `None` when it was not. Only called
/// after compilation failed, so a loadable component never pays for the walk.
pub fn async_abi_reason(bytes: &[u8]) -> Option<String> {
    uses_async_abi(bytes).then(|| {
        "was built with the component-model async ABI, which this Reasonix does not load; \
         rebuild it without async (jco componentize: the default StarlingMonkey backend, not \
         `--backend qjs`; wit-bindgen/cargo-component: no `async` exports or imports)"
            .to_string()
    })
}

/// Whether any canonical function or function type in `bytes` (nested components included)
/// belongs to the async ABI. Unreadable bytes count as not async: the compiler's own error then
/// stands.
fn uses_async_abi(bytes: &[u8]) -> bool {
    use wasmparser::{CanonicalFunction as F, CanonicalOption, ComponentType, Parser, Payload};
    let async_options = |options: &[CanonicalOption]| {
        options
            .iter()
            .any(|o| matches!(o, CanonicalOption::Async | CanonicalOption::Callback(_)))
    };
    for payload in Parser::new(0).parse_all(bytes) {
        match payload {
            Ok(Payload::ComponentCanonicalSection(reader)) => {
                for function in reader {
                    let Ok(function) = function else { return false };
                    let is_async = match &function {
                        F::Lift { options, .. } | F::Lower { options, .. } => {
                            async_options(options)
                        }
                        // The synchronous ABI: resources and (shared-everything) threads.
                        F::ResourceNew { .. }
                        | F::ResourceDrop { .. }
                        | F::ResourceRep { .. }
                        | F::ThreadSpawnRef { .. }
                        | F::ThreadSpawnIndirect { .. }
                        | F::ThreadAvailableParallelism => false,
                        // task.return, task.cancel, context.*, yield, subtasks, streams,
                        // futures, error contexts, waitable sets, backpressure, and whatever
                        // a later ABI adds.
                        _ => true,
                    };
                    if is_async {
                        return true;
                    }
                }
            }
            Ok(Payload::ComponentTypeSection(reader)) => {
                for ty in reader {
                    match ty {
                        Ok(ComponentType::Func(f)) if f.async_ => return true,
                        Ok(_) => {}
                        Err(_) => return false,
                    }
                }
            }
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
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

    /// A component header followed by one canonical section (id 8) holding `function`.
    fn component_with_canon(function: &[u8]) -> Vec<u8> {
        let mut bytes = b"\0asm\x0d\0\x01\0".to_vec();
        bytes.push(8);
        bytes.push(u8::try_from(function.len() + 1).unwrap());
        bytes.push(1);
        bytes.extend_from_slice(function);
        bytes
    }

    #[test]
    fn async_abi_is_recognised() {
        // task.cancel, task.return (no result, no options), waitable-set.new.
        for function in [&[0x05][..], &[0x09, 0x01, 0x00, 0x00], &[0x1f]] {
            let bytes = component_with_canon(function);
            let reason = async_abi_reason(&bytes).unwrap_or_else(|| panic!("{function:?}"));
            assert!(reason.contains("component-model async ABI"), "{reason}");
        }
        // canon lift of core function 0 with the `async` option (0x06), type 0.
        let lift_async = component_with_canon(&[0x00, 0x00, 0x00, 0x01, 0x06, 0x00]);
        assert!(async_abi_reason(&lift_async).is_some());
        // The same lift with only `string-encoding=utf8` (0x00).
        let lift_sync = component_with_canon(&[0x00, 0x00, 0x00, 0x01, 0x00, 0x00]);
        assert!(async_abi_reason(&lift_sync).is_none());
        // resource.new of type 0.
        assert!(async_abi_reason(&component_with_canon(&[0x02, 0x00])).is_none());
    }

    #[test]
    fn sync_components_and_garbage_are_not_async() {
        // The empty component: no canonical functions at all.
        assert!(async_abi_reason(b"\0asm\x0d\0\x01\0").is_none());
        assert!(async_abi_reason(b"not wasm at all").is_none());
    }

    proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = not_a_component_reason(&bytes);
            let _ = async_abi_reason(&bytes);
        }
    }
}
