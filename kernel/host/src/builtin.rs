//! What the binary embeds for each built-in component: its bytes and hash, and what the build
//! compiled and learnt from them (ADR 0005, ADR 0025).

/// A component embedded in the binary. The hash is computed at build time so start-up does not
/// hash the bytes again.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinComponent {
    pub name: &'static str,
    pub bytes: &'static [u8],
    pub sha256: &'static str,
    /// What the build compiled and learnt from `bytes`, so no start compiles or instantiates
    /// a built-in; `None` when the build could not (a cross build).
    pub precompiled: Option<Precompiled>,
}

/// A built-in's compiled artifact and self-description, made by the build script with the
/// kernel's own engine configuration ([`crate::component::precompile`]).
#[derive(Debug, Clone, Copy)]
pub struct Precompiled {
    /// The [`crate::cache::engine_tag`] the artifact was compiled under: used only by an
    /// engine with the same tag (otherwise the component is compiled).
    pub engine_tag: &'static str,
    pub artifact: crate::cache::EmbeddedArtifact,
    /// The [`crate::component::Description`], as JSON.
    pub description: &'static str,
}
