//! The directory walker behind `grep` and `glob`.
//!
//! It gives the results `ignore::WalkBuilder` gives with `standard_filters(true)`,
//! `require_git(false)`, `git_global(false)`, `follow_links(false)` and `sort_by_file_name`
//! (or with `standard_filters(false)`): entries depth first, each directory's entries sorted by
//! name; hidden entries skipped; `.ignore`, `.gitignore` and `.git/info/exclude` honoured per
//! directory and inherited, also from the directories between the workspace and the walk's
//! root; symlinks reported, never followed. The matching itself is `ignore`'s `Gitignore`.
//!
//! It exists because inside a wasm32-wasip2 component every filesystem call is a host call:
//! through wasi-libc and `std::fs`, `ignore` paid two `stat`s per directory entry, four probes
//! for ignore files per directory and four `stat`s per file read. Here the filesystem is a small
//! seam ([`Fs`]): natively `std::fs`, in a component WASI itself (`wasip2`), where a directory
//! listing carries each entry's type, ignore files are read only when the listing shows them,
//! and a file is opened and read without any `stat`.

use std::ffi::OsString;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Most bytes asked of one read: wasmtime's WASI never returns more per call.
pub const CHUNK: usize = 64 * 1024;

/// What a directory entry is, without following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (never followed).
    Symlink,
    /// Anything else (device, socket, fifo, unknown).
    Other,
}

/// One entry of a walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Absolute path.
    pub path: PathBuf,
    /// The last component of `path` (empty for `/`).
    pub name: OsString,
    /// Its type; for the walk's root, symlinks are followed.
    pub kind: Kind,
    /// 0 for the root, 1 for its entries, and so on.
    pub depth: usize,
}

/// The filesystem as the walker and the searchers see it. Paths are absolute and normalised.
pub trait Fs {
    /// An open file.
    type File;
    /// The type of `path`, following symlinks.
    fn kind(&self, path: &Path) -> io::Result<Kind>;
    /// The entries of the directory `dir` (name and type), in any order, without `.` and `..`.
    fn list(&self, dir: &Path) -> io::Result<Vec<(OsString, Kind)>>;
    /// Open the file at `path` for reading.
    fn open(&self, path: &Path) -> io::Result<Self::File>;
    /// Append the next at most [`CHUNK`] bytes of `file` to `out`; `Ok(0)` at its end.
    fn read_chunk(&self, file: &mut Self::File, out: &mut Vec<u8>) -> io::Result<usize>;
}

/// Append `file` to `out` until its end or until `out` holds more than `limit` bytes; true
/// when the whole file was read.
pub fn read_up_to<F: Fs>(
    fs: &F,
    file: &mut F::File,
    out: &mut Vec<u8>,
    limit: usize,
) -> io::Result<bool> {
    loop {
        if fs.read_chunk(file, out)? == 0 {
            return Ok(true);
        }
        if out.len() > limit {
            return Ok(false);
        }
    }
}

/// The rest of an open file as `io::Read`, after `head`.
pub struct Reader<'a, F: Fs> {
    fs: &'a F,
    file: F::File,
    chunk: Vec<u8>,
    pos: usize,
}

impl<'a, F: Fs> Reader<'a, F> {
    /// Read `head` first, then the rest of `file`.
    pub fn new(fs: &'a F, file: F::File, head: Vec<u8>) -> Self {
        Reader {
            fs,
            file,
            chunk: head,
            pos: 0,
        }
    }
}

impl<F: Fs> io::Read for Reader<'_, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.chunk.len() {
            self.chunk.clear();
            self.pos = 0;
            if self.fs.read_chunk(&mut self.file, &mut self.chunk)? == 0 {
                return Ok(0);
            }
        }
        let available = self.chunk.get(self.pos..).unwrap_or_default();
        let n = available.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), available.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.pos += n;
        Ok(n)
    }
}

/// How to walk.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Skip hidden entries and honour `.ignore`, `.gitignore` and `.git/info/exclude`.
    pub standard_filters: bool,
    /// Deepest entries reported (the root is depth 0); `None` for no limit.
    pub max_depth: Option<usize>,
}

/// Walk `root` (inside `top`, the workspace, whose ignore files down to `root` apply), calling
/// `visit` for every entry kept, the root first. `keep` is asked about every entry below the
/// root that the standard filters let through; a directory it refuses is not entered. Unreadable
/// directories and ignore files are skipped silently. Stops when `visit` breaks.
pub fn walk<F: Fs>(
    fs: &F,
    top: &Path,
    root: &Path,
    options: Options,
    keep: &mut dyn FnMut(&Entry) -> bool,
    visit: &mut dyn FnMut(&Entry) -> ControlFlow<()>,
) {
    let kind = match fs.kind(root) {
        Ok(kind) => kind,
        Err(_) => return,
    };
    let entry = Entry {
        path: root.to_path_buf(),
        name: root.file_name().unwrap_or_default().to_os_string(),
        kind,
        depth: 0,
    };
    if visit(&entry).is_break() || kind != Kind::Dir || options.max_depth == Some(0) {
        return;
    }
    let mut walker = Walker {
        fs,
        options,
        levels: Vec::new(),
        keep,
        visit,
    };
    if options.standard_filters {
        // The directories from the workspace down to the root's parent.
        if let Ok(below) = root.strip_prefix(top) {
            let mut parents = vec![top.to_path_buf()];
            for part in below {
                let next = parents.last().map_or_else(PathBuf::new, |p| p.join(part));
                parents.push(next);
            }
            parents.pop();
            for dir in parents {
                if let Ok(names) = fs.list(&dir) {
                    walker.levels.push(Level::load(fs, &dir, &names));
                }
            }
        }
    }
    let _ = walker.dir(root, 0);
}

/// The ignore rules of one directory.
struct Level {
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
}

impl Level {
    /// Read the ignore files of `dir` that `names` (its listing) shows exist.
    fn load<F: Fs>(fs: &F, dir: &Path, names: &[(OsString, Kind)]) -> Level {
        let has = |name: &str| names.iter().any(|(n, _)| n == name);
        let read = |path: PathBuf| -> Option<Gitignore> {
            let mut builder = GitignoreBuilder::new(dir);
            let mut bytes = Vec::new();
            let mut file = fs.open(&path).ok()?;
            read_up_to(fs, &mut file, &mut bytes, usize::MAX).ok()?;
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                // Like git (and `ignore`): a line that is not UTF-8 is dropped, a BOM ignored.
                let Ok(mut line) = std::str::from_utf8(line) else {
                    continue;
                };
                if i == 0 {
                    line = line.trim_start_matches('\u{feff}');
                }
                // An invalid glob drops only its own line, as in `ignore`.
                let _ = builder.add_line(Some(path.clone()), line);
            }
            builder.build().ok().filter(|g| !g.is_empty())
        };
        Level {
            ignore: has(".ignore").then(|| read(dir.join(".ignore"))).flatten(),
            gitignore: has(".gitignore")
                .then(|| read(dir.join(".gitignore")))
                .flatten(),
            exclude: has(".git")
                .then(|| read(dir.join(".git/info/exclude")))
                .flatten(),
        }
    }
}

struct Walker<'a, F: Fs> {
    fs: &'a F,
    options: Options,
    /// Ignore rules, outermost directory first.
    levels: Vec<Level>,
    keep: &'a mut dyn FnMut(&Entry) -> bool,
    visit: &'a mut dyn FnMut(&Entry) -> ControlFlow<()>,
}

impl<F: Fs> Walker<'_, F> {
    /// Visit the entries of `dir` (at `depth`) and below.
    fn dir(&mut self, dir: &Path, depth: usize) -> ControlFlow<()> {
        let Ok(mut names) = self.fs.list(dir) else {
            return ControlFlow::Continue(());
        };
        names.sort_by(|a, b| a.0.cmp(&b.0));
        let pushed = self.options.standard_filters;
        if pushed {
            self.levels.push(Level::load(self.fs, dir, &names));
        }
        let flow = self.entries(dir, depth + 1, names);
        if pushed {
            self.levels.pop();
        }
        flow
    }

    fn entries(
        &mut self,
        dir: &Path,
        depth: usize,
        names: Vec<(OsString, Kind)>,
    ) -> ControlFlow<()> {
        for (name, kind) in names {
            let entry = Entry {
                path: dir.join(&name),
                name,
                kind,
                depth,
            };
            if self.options.standard_filters && self.ignored(&entry) {
                continue;
            }
            if !(self.keep)(&entry) {
                continue;
            }
            (self.visit)(&entry)?;
            if kind == Kind::Dir && self.options.max_depth.is_none_or(|max| depth < max) {
                self.dir(&entry.path, depth)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Whether the standard filters drop `entry`: the innermost `.ignore` rule that matches
    /// decides, else the innermost `.gitignore` one, else `.git/info/exclude`; with no rule, a
    /// hidden entry is dropped (a whitelisted one is kept).
    fn ignored(&self, entry: &Entry) -> bool {
        let is_dir = entry.kind == Kind::Dir;
        let innermost = |pick: fn(&Level) -> Option<&Gitignore>| {
            self.levels
                .iter()
                .rev()
                .filter_map(pick)
                .map(|g| g.matched(&entry.path, is_dir))
                .find(|m| !m.is_none())
        };
        let decided = innermost(|l| l.ignore.as_ref())
            .or_else(|| innermost(|l| l.gitignore.as_ref()))
            .or_else(|| innermost(|l| l.exclude.as_ref()));
        match decided {
            Some(Match::Ignore(_)) => true,
            Some(Match::Whitelist(_)) => false,
            Some(Match::None) | None => entry.name.as_encoded_bytes().starts_with(b"."),
        }
    }
}

/// `std::fs`, for native builds and tests.
#[derive(Debug, Default, Clone, Copy)]
pub struct StdFs;

impl Fs for StdFs {
    type File = std::fs::File;

    fn kind(&self, path: &Path) -> io::Result<Kind> {
        Ok(kind_of(std::fs::metadata(path)?.file_type()))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<(OsString, Kind)>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let kind = entry.file_type().map_or(Kind::Other, kind_of);
            names.push((entry.file_name(), kind));
        }
        Ok(names)
    }

    fn open(&self, path: &Path) -> io::Result<Self::File> {
        std::fs::File::open(path)
    }

    fn read_chunk(&self, file: &mut Self::File, out: &mut Vec<u8>) -> io::Result<usize> {
        use std::io::Read as _;
        let start = out.len();
        out.resize(start + CHUNK, 0);
        let read = loop {
            match file.read(out.get_mut(start..).unwrap_or_default()) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        out.truncate(start + *read.as_ref().unwrap_or(&0));
        read
    }
}

fn kind_of(t: std::fs::FileType) -> Kind {
    if t.is_symlink() {
        Kind::Symlink
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

/// The filesystem of this build: WASI itself inside a component, `std::fs` natively.
#[cfg(not(target_os = "wasi"))]
pub type HostFs = StdFs;
/// The filesystem of this build: WASI itself inside a component, `std::fs` natively.
#[cfg(target_os = "wasi")]
pub type HostFs = wasi::WasiFs;

/// The filesystem of this build.
pub fn host_fs() -> HostFs {
    #[cfg(target_os = "wasi")]
    {
        wasi::WasiFs::new()
    }
    #[cfg(not(target_os = "wasi"))]
    {
        StdFs
    }
}

#[cfg(target_os = "wasi")]
mod wasi {
    //! WASI 0.2 directly: the workspace is preopened at its real absolute path, so an absolute
    //! path is opened relative to the preopen that contains it.

    use std::ffi::OsString;
    use std::io;
    use std::path::Path;

    use wasip2::filesystem::preopens::get_directories;
    use wasip2::filesystem::types::{
        Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags,
    };

    use super::{CHUNK, Fs, Kind};

    /// The filesystem through WASI 0.2.
    pub struct WasiFs {
        /// The preopened directories (without a trailing `/`), longest path first.
        preopens: Vec<(String, Descriptor)>,
    }

    /// A file opened through WASI, read at an explicit offset.
    pub struct WasiFile {
        descriptor: Descriptor,
        offset: u64,
        done: bool,
    }

    impl WasiFs {
        pub fn new() -> Self {
            let mut preopens: Vec<(String, Descriptor)> = get_directories()
                .into_iter()
                .map(|(d, p)| (p.trim_end_matches('/').to_string(), d))
                .collect();
            preopens.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
            WasiFs { preopens }
        }

        /// The preopen holding `path` and the path relative to it (`.` for the preopen). The
        /// paths the walker builds are normalised, so this compares bytes, not components.
        fn locate<'p>(&self, path: &'p Path) -> io::Result<(&Descriptor, &'p str)> {
            let bytes = path.as_os_str().as_encoded_bytes();
            for (base, descriptor) in &self.preopens {
                let rest = match bytes.strip_prefix(base.as_bytes()) {
                    Some([]) => b".".as_slice(),
                    Some([b'/']) => b".".as_slice(),
                    Some([b'/', rest @ ..]) => rest,
                    _ => continue,
                };
                return Ok((descriptor, utf8(rest, path)?));
            }
            Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} is outside every directory granted", path.display()),
            ))
        }
    }

    impl WasiFs {
        /// Write `bytes` over the file at `path` (created if missing) from its start, then cut
        /// it to their length. One host call for the data: through wasi-libc a write is split
        /// into stream chunks, each handed to a host thread.
        pub fn overwrite(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            let (base, rel) = self.locate(path)?;
            let file = base
                .open_at(
                    PathFlags::SYMLINK_FOLLOW,
                    rel,
                    OpenFlags::CREATE,
                    DescriptorFlags::WRITE,
                )
                .map_err(error)?;
            let mut done = 0usize;
            while done < bytes.len() {
                let written = file.write(&bytes[done..], done as u64).map_err(error)?;
                if written == 0 {
                    return Err(io::ErrorKind::WriteZero.into());
                }
                done += usize::try_from(written).map_err(|_| io::Error::other("write overflow"))?;
            }
            file.set_size(bytes.len() as u64).map_err(error)
        }
    }

    impl Fs for WasiFs {
        type File = WasiFile;

        fn kind(&self, path: &Path) -> io::Result<Kind> {
            let (base, rel) = self.locate(path)?;
            let stat = base
                .stat_at(PathFlags::SYMLINK_FOLLOW, rel)
                .map_err(error)?;
            Ok(kind_of(stat.type_))
        }

        fn list(&self, dir: &Path) -> io::Result<Vec<(OsString, Kind)>> {
            let (base, rel) = self.locate(dir)?;
            let opened;
            let descriptor = if rel == "." {
                base
            } else {
                // Entries the walk lists are never links; the root may be one, and is followed
                // (as `std::fs` does), inside the sandbox.
                opened = base
                    .open_at(
                        PathFlags::SYMLINK_FOLLOW,
                        rel,
                        OpenFlags::DIRECTORY,
                        DescriptorFlags::READ,
                    )
                    .map_err(error)?;
                &opened
            };
            let stream = descriptor.read_directory().map_err(error)?;
            let mut names = Vec::new();
            while let Some(entry) = stream.read_directory_entry().map_err(error)? {
                names.push((OsString::from(entry.name), kind_of(entry.type_)));
            }
            Ok(names)
        }

        fn open(&self, path: &Path) -> io::Result<WasiFile> {
            let (base, rel) = self.locate(path)?;
            let descriptor = base
                .open_at(
                    PathFlags::SYMLINK_FOLLOW,
                    rel,
                    OpenFlags::empty(),
                    DescriptorFlags::READ,
                )
                .map_err(error)?;
            Ok(WasiFile {
                descriptor,
                offset: 0,
                done: false,
            })
        }

        fn read_chunk(&self, file: &mut WasiFile, out: &mut Vec<u8>) -> io::Result<usize> {
            if file.done {
                return Ok(0);
            }
            let (bytes, end) = file
                .descriptor
                .read(CHUNK as u64, file.offset)
                .map_err(error)?;
            let n = bytes.len();
            file.offset += n as u64;
            // A regular file reads short only at its end: that saves the call that would
            // return nothing.
            file.done = end || n < CHUNK;
            if out.is_empty() {
                *out = bytes;
            } else {
                out.extend_from_slice(&bytes);
            }
            Ok(n)
        }
    }

    fn utf8<'a>(bytes: &'a [u8], path: &Path) -> io::Result<&'a str> {
        std::str::from_utf8(bytes).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not UTF-8, which WASI requires", path.display()),
            )
        })
    }

    fn kind_of(t: DescriptorType) -> Kind {
        match t {
            DescriptorType::RegularFile => Kind::File,
            DescriptorType::Directory => Kind::Dir,
            DescriptorType::SymbolicLink => Kind::Symlink,
            _ => Kind::Other,
        }
    }

    fn error(code: ErrorCode) -> io::Error {
        let kind = match code {
            ErrorCode::NoEntry => io::ErrorKind::NotFound,
            ErrorCode::Access | ErrorCode::NotPermitted => io::ErrorKind::PermissionDenied,
            ErrorCode::NotDirectory => io::ErrorKind::NotADirectory,
            ErrorCode::IsDirectory => io::ErrorKind::IsADirectory,
            _ => io::ErrorKind::Other,
        };
        io::Error::new(kind, format!("{code}"))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::fs;
    use std::io::Read as _;

    fn put(root: &Path, name: &str, bytes: &[u8]) {
        let p = root.join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }

    /// Entries of a walk as `depth kind path-relative-to-top`.
    fn ours(fs: &impl Fs, top: &Path, root: &Path, options: Options) -> Vec<String> {
        let mut seen = Vec::new();
        walk(fs, top, root, options, &mut |_| true, &mut |e| {
            seen.push(describe(top, &e.path, e.kind, e.depth));
            ControlFlow::Continue(())
        });
        seen
    }

    fn describe(top: &Path, path: &Path, kind: Kind, depth: usize) -> String {
        let rel = path.strip_prefix(top).unwrap().to_string_lossy();
        format!("{depth} {kind:?} {rel}")
    }

    /// The same walk through `ignore::WalkBuilder`, configured as grep and glob configured it.
    fn reference(top: &Path, root: &Path, options: Options) -> Vec<String> {
        let walker = ignore::WalkBuilder::new(root)
            .standard_filters(options.standard_filters)
            .require_git(false)
            .git_global(false)
            .follow_links(false)
            .max_depth(options.max_depth)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        walker
            .map(|e| {
                let e = e.unwrap();
                let t = e.file_type().unwrap();
                let kind = if t.is_symlink() {
                    Kind::Symlink
                } else if t.is_dir() {
                    Kind::Dir
                } else if t.is_file() {
                    Kind::File
                } else {
                    Kind::Other
                };
                describe(top, e.path(), kind, e.depth())
            })
            .collect()
    }

    fn filtered() -> Options {
        Options {
            standard_filters: true,
            max_depth: None,
        }
    }

    fn names(seen: &[String]) -> Vec<&str> {
        seen.iter().map(|s| s.rsplit(' ').next().unwrap()).collect()
    }

    #[test]
    fn ignore_files_at_several_levels_negation_and_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        put(top, ".gitignore", b"*.log\n/build/\ntmp\n!keep.log\n");
        put(top, ".ignore", b"secret.txt\n");
        put(top, ".git/info/exclude", b"excluded.txt\n");
        put(top, "a.log", b"");
        put(top, "keep.log", b"");
        put(top, "excluded.txt", b"");
        put(top, "secret.txt", b"");
        put(top, "build/out.txt", b"");
        put(top, "tmp", b"");
        put(top, ".hidden/x.txt", b"");
        put(top, ".dot", b"");
        put(top, "src/build/kept.txt", b"");
        put(
            top,
            "src/.gitignore",
            b"!*.log\nlocal.txt\n\xff\xfe bad line\n[invalid\n",
        );
        put(top, "src/b.log", b"");
        put(top, "src/local.txt", b"");
        put(top, "src/tmp/gone.txt", b"");
        put(top, "src/deep/.ignore", b"!secret.txt\n");
        put(top, "src/deep/secret.txt", b"");
        put(top, "src/deep/local.txt", b"");
        put(top, "Z.txt", b"");
        let seen = ours(&StdFs, top, top, filtered());
        assert_eq!(
            names(&seen),
            [
                "",
                "Z.txt",
                "keep.log",
                "src",
                "src/b.log",
                "src/build",
                "src/build/kept.txt",
                "src/deep",
                "src/deep/secret.txt",
            ]
        );
        assert_eq!(seen, reference(top, top, filtered()));
    }

    #[test]
    fn rules_between_the_workspace_and_the_root_apply() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        put(top, ".gitignore", b"*.gen\n");
        put(top, "a/.gitignore", b"/b/skip.txt\n");
        put(top, "a/b/skip.txt", b"");
        put(top, "a/b/x.gen", b"");
        put(top, "a/b/ok.txt", b"");
        let root = top.join("a/b");
        let seen = ours(&StdFs, top, &root, filtered());
        assert_eq!(names(&seen), ["a/b", "a/b/ok.txt"]);
        assert_eq!(seen, reference(top, &root, filtered()));
    }

    #[test]
    fn unfiltered_walk_with_depth_limit_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        put(top, ".gitignore", b"*\n");
        put(top, "b/c/d.txt", b"");
        put(top, "a.txt", b"");
        put(top, ".h", b"");
        std::os::unix::fs::symlink(top.join("b"), top.join("link")).unwrap();
        let options = Options {
            standard_filters: false,
            max_depth: Some(2),
        };
        let seen = ours(&StdFs, top, top, options);
        assert_eq!(
            seen,
            [
                "0 Dir ",
                "1 File .gitignore",
                "1 File .h",
                "1 File a.txt",
                "1 Dir b",
                "2 Dir b/c",
                "1 Symlink link",
            ]
        );
        assert_eq!(seen, reference(top, top, options));
        // A file as the root is the only entry.
        let file = top.join("a.txt");
        assert_eq!(ours(&StdFs, top, &file, filtered()), ["0 File a.txt"]);
    }

    #[test]
    fn keep_prunes_and_visit_stops() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        for f in ["node_modules/m.js", "x/1.txt", "x/2.txt", "y/3.txt"] {
            put(top, f, b"");
        }
        let mut seen = Vec::new();
        walk(
            &StdFs,
            top,
            top,
            filtered(),
            &mut |e| e.name != "node_modules",
            &mut |e| {
                seen.push(e.path.strip_prefix(top).unwrap().to_path_buf());
                if e.name == "2.txt" {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        let seen: Vec<_> = seen.iter().map(|p| p.to_string_lossy()).collect();
        assert_eq!(seen, ["", "x", "x/1.txt", "x/2.txt"]);
    }

    /// `std::fs`, counting what is opened.
    #[derive(Default)]
    struct Counting {
        opened: RefCell<Vec<PathBuf>>,
        listed: RefCell<usize>,
    }

    impl Fs for Counting {
        type File = fs::File;
        fn kind(&self, path: &Path) -> io::Result<Kind> {
            StdFs.kind(path)
        }
        fn list(&self, dir: &Path) -> io::Result<Vec<(OsString, Kind)>> {
            *self.listed.borrow_mut() += 1;
            StdFs.list(dir)
        }
        fn open(&self, path: &Path) -> io::Result<fs::File> {
            self.opened.borrow_mut().push(path.to_path_buf());
            StdFs.open(path)
        }
        fn read_chunk(&self, file: &mut fs::File, out: &mut Vec<u8>) -> io::Result<usize> {
            StdFs.read_chunk(file, out)
        }
    }

    #[test]
    fn ignore_files_are_read_only_when_listed() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        put(top, "a/b/c.txt", b"");
        put(top, "a/.gitignore", b"nothing\n");
        put(top, "d/.git/info/exclude", b"x\n");
        let fs = Counting::default();
        ours(&fs, top, top, filtered());
        let opened: Vec<_> = fs
            .opened
            .borrow()
            .iter()
            .map(|p| p.strip_prefix(top).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(opened, ["a/.gitignore", "d/.git/info/exclude"]);
        // top, a, a/b, d: `.git` is hidden, so never listed.
        assert_eq!(*fs.listed.borrow(), 4);
    }

    #[test]
    fn large_files_are_read_in_chunks_and_streamed_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let body: Vec<u8> = (0..CHUNK * 3 + 17).map(|i| (i % 251) as u8).collect();
        put(dir.path(), "big", &body);
        let path = dir.path().join("big");
        let mut whole = Vec::new();
        let mut file = StdFs.open(&path).unwrap();
        assert!(read_up_to(&StdFs, &mut file, &mut whole, usize::MAX).unwrap());
        assert_eq!(whole, body);
        let mut head = Vec::new();
        let mut file = StdFs.open(&path).unwrap();
        assert!(!read_up_to(&StdFs, &mut file, &mut head, 10).unwrap());
        assert_eq!(head.len(), CHUNK);
        let mut rest = Vec::new();
        Reader::new(&StdFs, file, head)
            .read_to_end(&mut rest)
            .unwrap();
        assert_eq!(rest, body);
    }

    /// A small deterministic generator, so a failure names a reproducible seed.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) as usize) % n
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    const NAMES: &[&str] = &[
        "a", "b", "B", "c.rs", "d.log", "e.txt", ".f", ".g.rs", "target", "build", "_h", "i.md",
        "é.txt", "a b", "Z",
    ];
    const RULES: &[&str] = &[
        "*.log",
        "!d.log",
        "target/",
        "/build",
        "build/",
        "!build",
        "*.rs",
        "!c.rs",
        "a",
        "!a",
        "**/e.txt",
        "b/*",
        "!.f",
        ".g.rs",
        "!.g.rs",
        "# comment",
        "",
        "a b",
        "\\!x",
        "[ab]",
        "i.md ",
        "/Z",
        "*/*.txt",
        "!**/target/",
        "B/**",
    ];

    fn rules(rng: &mut Lcg) -> String {
        (0..1 + rng.below(4))
            .map(|_| format!("{}\n", rng.pick(RULES)))
            .collect()
    }

    fn grow(rng: &mut Lcg, dir: &Path, depth: usize) {
        fs::create_dir_all(dir).unwrap();
        for (file, chance) in [(".gitignore", 3), (".ignore", 5)] {
            if rng.below(chance) == 0 {
                fs::write(dir.join(file), rules(rng)).unwrap();
            }
        }
        if rng.below(6) == 0 {
            let info = dir.join(".git/info");
            fs::create_dir_all(&info).unwrap();
            fs::write(info.join("exclude"), rules(rng)).unwrap();
        }
        for _ in 0..2 + rng.below(5) {
            let name = rng.pick(NAMES);
            let path = dir.join(name);
            if path.exists() {
                continue;
            }
            match rng.below(8) {
                0..=2 if depth < 4 => grow(rng, &path, depth + 1),
                7 => std::os::unix::fs::symlink(dir, &path).unwrap(),
                _ => fs::write(&path, b"").unwrap(),
            }
        }
    }

    #[test]
    fn same_entries_as_ignore_walkbuilder_on_generated_trees() {
        for seed in 0..60 {
            let dir = tempfile::tempdir().unwrap();
            let top = dir.path().join("ws");
            let mut rng = Lcg(seed);
            grow(&mut rng, &top, 0);
            let mut roots = vec![top.clone()];
            for entry in fs::read_dir(&top).unwrap() {
                let entry = entry.unwrap();
                if entry.file_type().unwrap().is_dir() {
                    roots.push(entry.path());
                }
            }
            for root in &roots {
                for options in [
                    filtered(),
                    Options {
                        standard_filters: false,
                        max_depth: None,
                    },
                    Options {
                        standard_filters: true,
                        max_depth: Some(2),
                    },
                ] {
                    assert_eq!(
                        ours(&StdFs, &top, root, options),
                        reference(&top, root, options),
                        "seed {seed}, root {}, {options:?}",
                        root.display()
                    );
                }
            }
        }
    }
}
