//! The shadowed path-taking methods of `wasi:filesystem/types`. Each wrapper runs the original
//! `wasmtime-wasi` implementation and adds the [`Plan`](super::Plan)'s checks around it; with no
//! guard (no workspace) or nothing to check, it is the original call.

use super::{Plan, descriptor_path, split_parent};
use crate::host::state::PluginState;
use std::path::{Path, PathBuf};
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource, ResourceType};
use wasmtime_wasi::filesystem::{WasiFilesystemCtxView, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::filesystem::types::ErrorCode as Code;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    self as fs, Descriptor, DescriptorFlags, DescriptorStat, DirectoryEntry, DirectoryEntryStream,
    ErrorCode, HostDescriptor, HostDirectoryEntryStream, MetadataHashValue, NewTimestamp,
    OpenFlags, PathFlags,
};
use wasmtime_wasi::p2::{FsError, FsResult};

/// The interface `wasmtime_wasi::p2::add_to_linker_sync` defines (its WIT package version).
/// Guests importing any `0.2.x` are linked to it by semver, so they all reach the wrappers
/// (the e2e tests build guests and check this). Update when wasmtime-wasi is upgraded.
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";

type View<'a> = WasiFilesystemCtxView<'a>;
type Ret<T> = wasmtime::Result<(Result<T, ErrorCode>,)>;

/// Replace the path-taking descriptor methods in `linker` (after `add_to_linker_sync`).
pub(crate) fn shadow_filesystem(linker: &mut Linker<PluginState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut inst = linker.instance(FILESYSTEM_TYPES)?;
    inst.func_wrap(
        "[method]descriptor.open-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, pflags, path, oflags, flags): (
            Resource<Descriptor>,
            PathFlags,
            String,
            OpenFlags,
            DescriptorFlags,
        )| {
            // Open descriptors count against the plugin's host limits (`host/limits.rs`).
            store.data_mut().note_open()?;
            with_guard(&mut store, |view, plan| match plan {
                None => HostDescriptor::open_at(view, fd, pflags, path, oflags, flags),
                Some(plan) => open_at(view, plan, fd, pflags, path, oflags, flags),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.stat-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, pflags, path): (Resource<Descriptor>, PathFlags, String)|
         -> Ret<DescriptorStat> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if plan.active() => {
                    // The original first, so what it refuses keeps its own error code.
                    let stat = HostDescriptor::stat_at(view, borrow(&fd), pflags, path.clone())?;
                    at(view, fd, path, metadata_check(plan, pflags), |_, _, _| {
                        Ok(stat)
                    })
                }
                _ => HostDescriptor::stat_at(view, fd, pflags, path),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.metadata-hash-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, pflags, path): (Resource<Descriptor>, PathFlags, String)|
         -> Ret<MetadataHashValue> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if plan.active() => {
                    let hash =
                        HostDescriptor::metadata_hash_at(view, borrow(&fd), pflags, path.clone())?;
                    at(view, fd, path, metadata_check(plan, pflags), |_, _, _| {
                        Ok(hash)
                    })
                }
                _ => HostDescriptor::metadata_hash_at(view, fd, pflags, path),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.set-times-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, pflags, path, atim, mtim): (
            Resource<Descriptor>,
            PathFlags,
            String,
            NewTimestamp,
            NewTimestamp,
        )|
         -> Ret<()> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if plan.active() => at(view, fd, path, metadata_check(plan, pflags), {
                    |view, fd, path| {
                        HostDescriptor::set_times_at(view, fd, pflags, path, atim, mtim)
                    }
                }),
                _ => HostDescriptor::set_times_at(view, fd, pflags, path, atim, mtim),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.readlink-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, path): (Resource<Descriptor>, String)|
         -> Ret<String> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if plan.active() => at(
                    view,
                    fd,
                    path,
                    |target| plan.forbidden(target).then_some(Code::NoEntry),
                    |v, fd, p| HostDescriptor::readlink_at(v, fd, p),
                ),
                _ => HostDescriptor::readlink_at(view, fd, path),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.create-directory-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, path): (Resource<Descriptor>, String)|
         -> Ret<()> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if checks_writes(plan) => at(
                    view,
                    fd,
                    path,
                    |target| write_check(plan, target),
                    |v, fd, p| HostDescriptor::create_directory_at(v, fd, p),
                ),
                _ => HostDescriptor::create_directory_at(view, fd, path),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.unlink-file-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, path): (Resource<Descriptor>, String)|
         -> Ret<()> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if checks_writes(plan) => at(
                    view,
                    fd,
                    path,
                    |target| move_check(plan, target),
                    |v, fd, p| HostDescriptor::unlink_file_at(v, fd, p),
                ),
                _ => HostDescriptor::unlink_file_at(view, fd, path),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.remove-directory-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, path): (Resource<Descriptor>, String)|
         -> Ret<()> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if checks_writes(plan) => at(
                    view,
                    fd,
                    path,
                    |target| move_check(plan, target),
                    |v, fd, p| HostDescriptor::remove_directory_at(v, fd, p),
                ),
                _ => HostDescriptor::remove_directory_at(view, fd, path),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.rename-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, old, new_fd, new): (Resource<Descriptor>, String, Resource<Descriptor>, String)|
         -> Ret<()> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if checks_writes(plan) => at(
                    view,
                    fd,
                    old,
                    |source| move_check(plan, source),
                    |view, fd, old| {
                        at(
                            view,
                            new_fd,
                            new,
                            |dest| {
                                move_check(plan, dest).or_else(|| {
                                    plan.holds_protected(dest).then_some(Code::NotPermitted)
                                })
                            },
                            |view, new_fd, new| {
                                HostDescriptor::rename_at(view, fd, old, new_fd, new)
                            },
                        )
                    },
                ),
                _ => HostDescriptor::rename_at(view, fd, old, new_fd, new),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.link-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, old_flags, old, new_fd, new): (
            Resource<Descriptor>,
            PathFlags,
            String,
            Resource<Descriptor>,
            String,
        )|
         -> Ret<()> {
            with_guard(&mut store, |view, plan| match plan {
                Some(plan) if checks_writes(plan) => at(
                    view,
                    fd,
                    old,
                    |source| {
                        metadata_check(plan, old_flags)(source)
                            .or_else(|| plan.protected(source).then_some(Code::NotPermitted))
                    },
                    |view, fd, old| {
                        at(
                            view,
                            new_fd,
                            new,
                            |dest| write_check(plan, dest),
                            |view, new_fd, new| {
                                HostDescriptor::link_at(view, fd, old_flags, old, new_fd, new)
                            },
                        )
                    },
                ),
                _ => HostDescriptor::link_at(view, fd, old_flags, old, new_fd, new),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.symlink-at",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd, target, link): (Resource<Descriptor>, String, String)|
         -> Ret<()> {
            with_guard(&mut store, |view, plan| match plan {
                // Every plugin's symlinks are checked: where they point matters to whoever
                // follows them later (jobs, tools, the user), not only to this plugin.
                Some(plan) => symlink_at(view, plan, fd, target, link),
                None => HostDescriptor::symlink_at(view, fd, target, link),
            })
        },
    )?;
    inst.func_wrap(
        "[method]descriptor.read-directory",
        |mut store: StoreContextMut<'_, PluginState>,
         (fd,): (Resource<Descriptor>,)|
         -> Ret<Resource<DirectoryEntryStream>> {
            let guard = store.data().fs_guard.clone();
            with_guard(&mut store, |view, plan| {
                let (Some(guard), Some(plan)) = (guard, plan.filter(|p| p.active())) else {
                    return HostDescriptor::read_directory(view, fd);
                };
                let Ok(real) = descriptor_path(view.table.get(&fd)?) else {
                    return Err(refuse(Code::Access));
                };
                // A preopened directory is not opened through `open-at`: one that lies in a
                // hidden or forbidden path (the workspace is the home) lists nothing.
                if plan.forbidden(&real) {
                    return Err(refuse(Code::NoEntry));
                }
                let stream = HostDescriptor::read_directory(view, fd)?;
                let hidden = plan.hidden_names(&real);
                if !hidden.is_empty() {
                    guard.track_listing(stream.rep(), hidden);
                }
                Ok(stream)
            })
        },
    )?;
    inst.func_wrap(
        "[method]directory-entry-stream.read-directory-entry",
        |mut store: StoreContextMut<'_, PluginState>,
         (stream,): (Resource<DirectoryEntryStream>,)|
         -> Ret<Option<DirectoryEntry>> {
            let guard = store.data().fs_guard.clone();
            with_guard(&mut store, |view, plan| {
                let skip = match (&guard, plan) {
                    (Some(guard), Some(plan)) if plan.active() => {
                        guard.listing_filter(stream.rep())
                    }
                    _ => None,
                };
                let rep = stream.rep();
                let Some(skip) = skip else {
                    return HostDirectoryEntryStream::read_directory_entry(view, stream);
                };
                loop {
                    let next = HostDirectoryEntryStream::read_directory_entry(
                        view,
                        Resource::new_borrow(rep),
                    )?;
                    match next {
                        Some(entry) if skip.contains(&entry.name) => continue,
                        other => return Ok(other),
                    }
                }
            })
        },
    )?;
    // Re-defined only to forget the listing's filter when the guest drops it (a later stream
    // may get the same handle).
    inst.resource(
        "directory-entry-stream",
        ResourceType::host::<DirectoryEntryStream>(),
        |mut store: StoreContextMut<'_, PluginState>, rep: u32| {
            if let Some(guard) = &store.data().fs_guard {
                guard.forget_listing(rep);
            }
            let mut view = WasiFilesystemView::filesystem(store.data_mut());
            HostDirectoryEntryStream::drop(&mut view, Resource::new_own(rep))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Run `body` with the store's filesystem view and its guard's plan (none without a
/// workspace), and turn its error into the WIT error code (or a trap).
fn with_guard<T>(
    store: &mut StoreContextMut<'_, PluginState>,
    body: impl FnOnce(&mut View<'_>, Option<&Plan>) -> FsResult<T>,
) -> Ret<T> {
    let state = store.data_mut();
    let guard = state.fs_guard.clone();
    let mut view = WasiFilesystemView::filesystem(state);
    let result = body(&mut view, guard.as_deref().map(|g| g.plan()));
    match result {
        Ok(value) => Ok((Ok(value),)),
        Err(e) => Ok((Err(fs::Host::convert_error_code(&mut view, e)?),)),
    }
}

fn checks_writes(plan: &Plan) -> bool {
    plan.active() || plan.guards_protected()
}

/// Creating or writing `target`.
fn write_check(plan: &Plan, target: &Path) -> Option<Code> {
    if plan.forbidden(target) {
        Some(Code::NoEntry)
    } else if plan.protected(target) {
        Some(Code::NotPermitted)
    } else {
        None
    }
}

/// Moving, replacing or deleting `target`: also refused for the ancestors of hidden and
/// forbidden roots, which would take them out of sight of the path check.
fn move_check(plan: &Plan, target: &Path) -> Option<Code> {
    write_check(plan, target).or_else(|| plan.holds_forbidden(target).then_some(Code::NotPermitted))
}

/// Metadata of `target`; with symlink following, also of what the link resolves to (metadata
/// only, so resolving it on the host rather than by identity is good enough).
fn metadata_check(plan: &Plan, pflags: PathFlags) -> impl Fn(&Path) -> Option<Code> + '_ {
    move |target| {
        let follows = pflags.contains(PathFlags::SYMLINK_FOLLOW);
        let resolved = || std::fs::canonicalize(target).ok();
        let hit =
            plan.forbidden(target) || (follows && resolved().is_some_and(|r| plan.forbidden(&r)));
        hit.then_some(Code::NoEntry)
    }
}

fn borrow(fd: &Resource<Descriptor>) -> Resource<Descriptor> {
    Resource::new_borrow(fd.rep())
}

fn refuse(code: Code) -> FsError {
    code.into()
}

/// A directory opened to run an operation on a final name inside it: its real location is
/// what the check uses, and the operation runs on it (not on the path string again).
struct Parent {
    fd: Resource<Descriptor>,
    owned: bool,
    real: PathBuf,
}

impl Parent {
    /// `dir` under `fd` (the empty string is `fd` itself), opened through the original
    /// implementation.
    fn open(view: &mut View<'_>, fd: &Resource<Descriptor>, dir: &str) -> FsResult<Parent> {
        let (fd, owned) = if dir.is_empty() {
            (borrow(fd), false)
        } else {
            let opened = HostDescriptor::open_at(
                view,
                borrow(fd),
                PathFlags::SYMLINK_FOLLOW,
                dir.to_string(),
                OpenFlags::DIRECTORY,
                DescriptorFlags::READ,
            )?;
            (opened, true)
        };
        let parent = Parent {
            fd,
            owned,
            real: PathBuf::new(),
        };
        match descriptor_path(view.table.get(&parent.fd)?) {
            Ok(real) => Ok(Parent { real, ..parent }),
            Err(_) => {
                // Cannot tell where it is: fail closed.
                parent.close(view);
                Err(refuse(Code::Access))
            }
        }
    }

    fn close(self, view: &mut View<'_>) {
        if self.owned {
            let _ = HostDescriptor::drop(view, self.fd);
        }
    }
}

/// Check the target of `path` under `fd` with `check`, then run `op` on it: on the opened
/// parent and the final name when the path ends in a name, else on the original arguments
/// (`.`, `..`: the whole path is opened and checked as a directory).
fn at<T>(
    view: &mut View<'_>,
    fd: Resource<Descriptor>,
    path: String,
    check: impl FnOnce(&Path) -> Option<Code>,
    op: impl FnOnce(&mut View<'_>, Resource<Descriptor>, String) -> FsResult<T>,
) -> FsResult<T> {
    match split_parent(&path) {
        Some(split) => {
            let parent = Parent::open(view, &fd, split.dir)?;
            if let Some(code) = check(&parent.real.join(split.name)) {
                parent.close(view);
                return Err(refuse(code));
            }
            let result = op(view, borrow(&parent.fd), split.tail.to_string());
            parent.close(view);
            result
        }
        None => {
            let whole = Parent::open(view, &fd, &path)?;
            let target = whole.real.clone();
            whole.close(view);
            if let Some(code) = check(&target) {
                return Err(refuse(code));
            }
            op(view, fd, path)
        }
    }
}

/// Drop `opened` and refuse when its real location is forbidden (or protected, for a write).
fn check_opened(
    view: &mut View<'_>,
    plan: &Plan,
    opened: Resource<Descriptor>,
    write: bool,
) -> FsResult<Resource<Descriptor>> {
    let verdict = match descriptor_path(view.table.get(&opened)?) {
        Ok(real) if plan.forbidden(&real) => Some(Code::NoEntry),
        Ok(real) if write && plan.protected(&real) => Some(Code::NotPermitted),
        Ok(_) => None,
        Err(_) => Some(Code::Access),
    };
    match verdict {
        None => Ok(opened),
        Some(code) => {
            HostDescriptor::drop(view, opened).map_err(FsError::trap)?;
            Err(refuse(code))
        }
    }
}

fn open_at(
    view: &mut View<'_>,
    plan: &Plan,
    fd: Resource<Descriptor>,
    pflags: PathFlags,
    path: String,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> FsResult<Resource<Descriptor>> {
    let writes = flags.contains(DescriptorFlags::WRITE)
        || oflags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE);
    if !(writes && checks_writes(plan)) {
        if !plan.active() {
            // The common case: nothing forbidden within reach.
            return HostDescriptor::open_at(view, fd, pflags, path, oflags, flags);
        }
        // Open first, then check what was opened: a symlink swapped in between cannot help.
        let opened = HostDescriptor::open_at(view, fd, pflags, path, oflags, flags)?;
        return check_opened(view, plan, opened, false);
    }
    let Some(split) = split_parent(&path) else {
        // `.`/`..`: a directory, which cannot be opened for writing anyway.
        let opened = HostDescriptor::open_at(view, fd, pflags, path, oflags, flags)?;
        return check_opened(view, plan, opened, true);
    };
    let parent = Parent::open(view, &fd, split.dir)?;
    if let Some(code) = write_check(plan, &parent.real.join(split.name)) {
        parent.close(view);
        return Err(refuse(code));
    }
    // Truncation waits until the opened file is known to be writable; creating follows no
    // symlink at the final name (a dangling link could otherwise create a protected file).
    let truncate = oflags.contains(OpenFlags::TRUNCATE);
    let base = oflags & !OpenFlags::TRUNCATE;
    let flags = if truncate || oflags.contains(OpenFlags::CREATE) {
        flags | DescriptorFlags::WRITE
    } else {
        flags
    };
    let tail = split.tail.to_string();
    let opened = if base.contains(OpenFlags::CREATE) && !base.contains(OpenFlags::EXCLUSIVE) {
        let existing = base & !OpenFlags::CREATE;
        match HostDescriptor::open_at(
            view,
            borrow(&parent.fd),
            pflags,
            tail.clone(),
            existing,
            flags,
        ) {
            Err(e) if e.downcast_ref() == Some(&Code::NoEntry) => HostDescriptor::open_at(
                view,
                borrow(&parent.fd),
                pflags,
                tail,
                base | OpenFlags::EXCLUSIVE,
                flags,
            ),
            other => other,
        }
    } else {
        HostDescriptor::open_at(view, borrow(&parent.fd), pflags, tail, base, flags)
    };
    parent.close(view);
    let opened = check_opened(view, plan, opened?, true)?;
    if truncate && let Err(e) = HostDescriptor::set_size(view, borrow(&opened), 0) {
        HostDescriptor::drop(view, opened).map_err(FsError::trap)?;
        return Err(e);
    }
    Ok(opened)
}

fn symlink_at(
    view: &mut View<'_>,
    plan: &Plan,
    fd: Resource<Descriptor>,
    target: String,
    link: String,
) -> FsResult<()> {
    let Some(split) = split_parent(&link) else {
        return Err(refuse(Code::Exist));
    };
    let parent = Parent::open(view, &fd, split.dir)?;
    let at = parent.real.join(split.name);
    let verdict = if plan.forbidden(&at) {
        Some(Code::NoEntry)
    } else if plan.protected(&at) || plan.holds_protected(&at) {
        Some(Code::NotPermitted)
    } else {
        plan.symlink_refusal(&parent.real, &target)
            .map(|_| Code::NotPermitted)
    };
    let result = match verdict {
        Some(code) => Err(refuse(code)),
        None => {
            HostDescriptor::symlink_at(view, borrow(&parent.fd), target, split.tail.to_string())
        }
    };
    parent.close(view);
    result
}
