//! Plugin self-description validation: whatever a component lists, `validate::check` never
//! panics, and whatever it accepts is within every limit.
//! Run: see fuzz/README.md (`RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none self_description …`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use reasonix_core::capability::Capabilities;
use reasonix_host::component::validate::{self, *};
use reasonix_host::component::{Description, PluginInfo};
use reasonix_core::types::{ProviderKind, Subscription, ToolSpec};

#[derive(arbitrary::Arbitrary, Debug)]
struct Input {
    version: String,
    description: String,
    network: Vec<String>,
    env: Vec<String>,
    tools: Vec<(String, String, String, Option<String>)>,
    kinds: Vec<(String, String, String, String)>,
    points: Vec<(String, i32)>,
}

fuzz_target!(|input: Input| {
    let description = Description {
        info: PluginInfo {
            name: "fuzzed".into(),
            version: input.version,
            description: input.description,
            requested: Capabilities {
                network: input.network,
                env: input.env,
                ..Capabilities::default()
            },
            requested_memory_mib: None,
            requested_call_timeout_ms: None,
        },
        tools: input
            .tools
            .into_iter()
            .map(|(name, description, parameters, guidance)| ToolSpec {
                name,
                description,
                parameters,
                read_only: true,
                guidance,
            })
            .collect(),
        provider_kinds: input
            .kinds
            .into_iter()
            .map(
                |(name, description, credential_header, credential_prefix)| ProviderKind {
                    name,
                    description,
                    credential_header,
                    credential_prefix,
                },
            )
            .collect(),
        interception_points: input
            .points
            .into_iter()
            .map(|(point, priority)| Subscription { point, priority })
            .collect(),
        slots: Vec::new(),
    };
    if validate::check(&description).is_ok() {
        assert!(description.tools.len() <= MAX_TOOLS);
        assert!(description.provider_kinds.len() <= MAX_PROVIDER_KINDS);
        assert!(description.interception_points.len() <= MAX_INTERCEPTION_POINTS);
        for tool in &description.tools {
            assert!(!tool.name.is_empty() && tool.name.len() <= MAX_NAME_LEN);
            assert!(
                tool.name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            );
            assert!(tool.description.len() <= MAX_DESCRIPTION_BYTES);
            assert!(tool.parameters.len() <= MAX_SCHEMA_BYTES);
            assert!(tool.guidance.as_ref().is_none_or(|g| g.len() <= MAX_GUIDANCE_BYTES));
        }
        for sub in &description.interception_points {
            assert!(sub.point.bytes().all(|b| b.is_ascii_graphic()));
            assert!((-PRIORITY_BOUND..=PRIORITY_BOUND).contains(&sub.priority));
        }
    }
});
