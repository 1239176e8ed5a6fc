use super::confine::{self, ConfineError, Content};
use super::*;
use std::os::unix::fs::symlink;

fn store() -> (tempfile::TempDir, CheckpointStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = CheckpointStore::for_transcript(&dir.path().join("s1.jsonl"));
    (dir, store)
}

fn objects(store: &CheckpointStore) -> usize {
    std::fs::read_dir(store.dir().join("objects"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn identical_content_is_stored_once() {
    let (_dir, store) = store();
    let a = store.put(b"same bytes").unwrap();
    let b = store.put(b"same bytes").unwrap();
    let c = store.put(&[0u8, 159, 146, 150]).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(objects(&store), 2);
    assert_eq!(store.get(&c).unwrap(), vec![0u8, 159, 146, 150]);
}

#[test]
fn a_damaged_or_foreign_object_name_is_refused() {
    let (_dir, store) = store();
    let sha = store.put(b"content").unwrap();
    std::fs::write(store.dir().join("objects").join(&sha), b"tampered").unwrap();
    assert!(matches!(store.get(&sha), Err(CheckpointError::Object(_))));
    assert!(matches!(
        store.get("../../etc/passwd"),
        Err(CheckpointError::Object(_))
    ));
}

#[test]
fn the_recorder_keeps_the_first_touch_of_each_path() {
    let (dir, store) = store();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("a.txt"), "v1").unwrap();
    let mut rec = TurnRecorder::start(store.clone(), &ws, 4).unwrap();
    rec.touch(&ws.join("a.txt").display().to_string()).unwrap();
    std::fs::write(ws.join("a.txt"), "v2").unwrap();
    rec.touch("a.txt").unwrap();
    rec.touch("new/dir/b.txt").unwrap();
    rec.ran_shell().unwrap();
    let saved = &store.turns().unwrap()[0];
    assert_eq!(saved.turn, 4);
    assert!(saved.shell);
    let sha = saved.files["a.txt"].clone().unwrap();
    assert_eq!(store.get(&sha).unwrap(), b"v1");
    assert_eq!(saved.files["new/dir/b.txt"], None);
    assert!(saved.absent_dirs.contains("new"), "{saved:?}");
}

#[test]
fn the_recorder_never_reads_outside_the_workspace() {
    let (dir, store) = store();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret"), "s3cret").unwrap();
    symlink(&outside, ws.join("link")).unwrap();
    symlink(outside.join("secret"), ws.join("file-link")).unwrap();
    let mut rec = TurnRecorder::start(store.clone(), &ws, 1).unwrap();
    for path in [
        "link/secret",
        "file-link",
        "../outside/secret",
        &outside.join("secret").display().to_string(),
    ] {
        rec.touch(path).unwrap();
    }
    let saved = &store.turns().unwrap()[0];
    assert!(saved.files.is_empty(), "{saved:?}");
    assert_eq!(saved.skipped.len(), 4, "{saved:?}");
    assert_eq!(objects(&store), 0);
}

#[test]
fn relative_paths_stay_inside() {
    let ws = Path::new("/w/s");
    assert_eq!(confine::relative(ws, "/w/s/a/./b").unwrap(), "a/b");
    assert_eq!(confine::relative(ws, "a/b").unwrap(), "a/b");
    assert!(matches!(
        confine::relative(ws, "a/../../x"),
        Err(ConfineError::ParentDir(_))
    ));
    assert!(matches!(
        confine::relative(ws, "/w/other"),
        Err(ConfineError::Outside(_))
    ));
    assert!(confine::relative(ws, "/w/s").is_err());
}

#[test]
fn writes_replace_a_link_and_never_write_through_one() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("target"), "untouched").unwrap();
    symlink(outside.join("target"), ws.join("f")).unwrap();
    symlink(&outside, ws.join("d")).unwrap();

    confine::write(&ws, "f", b"restored").unwrap();
    assert_eq!(std::fs::read(outside.join("target")).unwrap(), b"untouched");
    assert!(
        !std::fs::symlink_metadata(ws.join("f"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(std::fs::read(ws.join("f")).unwrap(), b"restored");

    assert!(matches!(
        confine::write(&ws, "d/new", b"x"),
        Err(ConfineError::Symlink(_))
    ));
    assert!(matches!(
        confine::remove(&ws, "d/target"),
        Err(ConfineError::Symlink(_))
    ));
    assert!(!outside.join("new").exists());
    assert!(outside.join("target").exists());
}

#[test]
fn a_failed_write_leaves_the_previous_content_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::create_dir(ws.join("sub")).unwrap();
    std::fs::write(ws.join("sub/keep"), "old").unwrap();
    // A directory where the file should go: the rename fails.
    std::fs::create_dir(ws.join("sub/adir")).unwrap();
    assert!(confine::write(ws, "sub/adir", b"new").is_err());
    confine::write(ws, "sub/keep", b"new").unwrap();
    let names: Vec<String> = std::fs::read_dir(ws.join("sub"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(std::fs::read(ws.join("sub/keep")).unwrap(), b"new");
    assert_eq!(
        confine::read(ws, "sub/keep").unwrap().0,
        Content::File(b"new".to_vec())
    );
}

#[test]
fn checkpoint_files_are_replaced_whole() {
    let (_dir, store) = store();
    let mut c = Checkpoint {
        turn: 2,
        ..Checkpoint::default()
    };
    store.save_turn(&c).unwrap();
    c.shell = true;
    store.save_turn(&c).unwrap();
    let names: Vec<String> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["turn-2.json"]);
    assert!(store.turns().unwrap()[0].shell);
}

#[test]
fn a_tampered_checkpoint_path_is_refused_when_restoring() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    for rel in ["../escape", "a/../../escape", "/abs", "a//b", "./a"] {
        assert!(confine::write(&ws, rel, b"x").is_err(), "{rel}");
        assert!(confine::remove(&ws, rel).is_err(), "{rel}");
        assert!(confine::read(&ws, rel).is_err(), "{rel}");
    }
    assert!(!dir.path().join("escape").exists());
}

#[test]
fn rewind_restores_the_earliest_snapshot_and_undo_the_state_before_it() {
    let (dir, store) = store();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("f"), "t1").unwrap();
    let mut one = TurnRecorder::start(store.clone(), &ws, 1).unwrap();
    one.touch("f").unwrap();
    one.touch("new/g").unwrap();
    std::fs::write(ws.join("f"), "t2").unwrap();
    std::fs::create_dir(ws.join("new")).unwrap();
    std::fs::write(ws.join("new/g"), "made").unwrap();
    let mut two = TurnRecorder::start(store.clone(), &ws, 2).unwrap();
    two.touch("f").unwrap();
    std::fs::write(ws.join("f"), "t3").unwrap();

    let report = crate::rewind::rewind_code(&store, &ws, 1).unwrap();
    assert_eq!(std::fs::read(ws.join("f")).unwrap(), b"t1");
    assert!(
        !ws.join("new").exists(),
        "the directory turn 1 made is gone"
    );
    assert_eq!(report.restored, ["f"]);
    assert_eq!(report.deleted, ["new/g"]);

    crate::rewind::undo_last(&store, &ws).unwrap();
    assert_eq!(std::fs::read(ws.join("f")).unwrap(), b"t3");
    assert_eq!(std::fs::read(ws.join("new/g")).unwrap(), b"made");
    assert!(matches!(
        crate::rewind::undo_last(&store, &ws),
        Err(CheckpointError::NothingToUndo)
    ));
    assert!(matches!(
        crate::rewind::rewind_code(&store, &ws, 7),
        Err(CheckpointError::NoTurn { .. })
    ));
}
