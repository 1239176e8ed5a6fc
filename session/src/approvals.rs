//! Approval questions keyed by id. The agent's thread asks ([`Router::approver`]) and waits;
//! a front end answers by id from any thread ([`Router::answer`]); cancelling the turn
//! withdraws what is still open. "Always" is written to the user's own configuration file
//! here, so every front end persists it alike (a project file never widens what runs).

use crate::events::{Emit, SessionEvent};
use crate::persist;
use crate::question::{Answer, AnswerError, Answered, Question};
use crate::tokens::Tokens;
use reasonix_agent::permissions::{
    Approval, ApprovalRequest, Approver,
    policy::{Decision, Source},
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

struct Open {
    scopes: Vec<String>,
    reply: SyncSender<Approval>,
    /// A plan to approve: "always" is never written to a file for it.
    plan: bool,
}

/// The open questions of one session.
pub struct Router {
    next: AtomicU64,
    open: Mutex<HashMap<String, Open>>,
    /// The user's configuration file, where "always" writes.
    persist_to: Option<PathBuf>,
    /// The running turn's token: cancelling it withdraws the questions.
    tokens: Arc<Tokens>,
    emit: Emit,
}

impl Router {
    pub(crate) fn new(persist_to: Option<PathBuf>, tokens: Arc<Tokens>, emit: Emit) -> Router {
        Router {
            next: AtomicU64::new(1),
            open: Mutex::new(HashMap::new()),
            persist_to,
            tokens,
            emit,
        }
    }

    pub(crate) fn emit(&self) -> &Emit {
        &self.emit
    }

    /// The approver the agent asks through.
    pub(crate) fn approver(self: &Arc<Self>) -> Arc<dyn Approver> {
        Arc::new(RoutedApprover(self.clone()))
    }

    /// Answer question `id`. The agent's thread goes on at once.
    pub fn answer(&self, id: &str, answer: Answer) -> Result<Answered, AnswerError> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let question = open
            .get(id)
            .ok_or_else(|| AnswerError::Unknown(id.to_string()))?;
        let rule = |chosen: Option<String>| -> Result<String, AnswerError> {
            match chosen {
                Some(rule) if question.scopes.contains(&rule) => Ok(rule),
                Some(rule) => Err(AnswerError::NotOffered {
                    question: id.to_string(),
                    rule,
                    offered: question.scopes.join(", "),
                }),
                None => question
                    .scopes
                    .first()
                    .cloned()
                    .ok_or_else(|| AnswerError::NoScope(id.to_string())),
            }
        };
        let (approval, answered) = match answer {
            Answer::Once => (Approval::Once, Answered::Once),
            Answer::Session(chosen) => {
                let rule = rule(chosen)?;
                (Approval::Session(rule.clone()), Answered::Session(rule))
            }
            Answer::Always(chosen) if question.plan => {
                let rule = rule(chosen)?;
                (Approval::Session(rule.clone()), Answered::Session(rule))
            }
            Answer::Always(chosen) => {
                let rule = rule(chosen)?;
                self.persisted(rule)
            }
            Answer::Deny(note) => {
                let note = note.filter(|n| !n.trim().is_empty());
                (Approval::Deny(note.clone()), Answered::Denied(note))
            }
        };
        let Some(question) = open.remove(id) else {
            return Err(AnswerError::Unknown(id.to_string()));
        };
        // Sent under the lock: an asker that finds its question gone finds the answer
        // waiting. It may have gone itself (its turn ended): the answer is then moot.
        let _ = question.reply.send(approval);
        drop(open);
        (self.emit)(SessionEvent::QuestionClosed {
            id: id.to_string(),
            answered: answered.clone(),
        });
        Ok(answered)
    }

    /// "Always": written to the user's file, or kept to the session when it cannot be.
    fn persisted(&self, rule: String) -> (Approval, Answered) {
        let Some(file) = &self.persist_to else {
            let why = "this session has no user configuration file to write to".to_string();
            return (
                Approval::Session(rule.clone()),
                Answered::SessionOnly { rule, why },
            );
        };
        match persist::allow_rule(file, &rule) {
            Ok(()) => (
                Approval::Persist(rule.clone()),
                Answered::Persisted {
                    rule,
                    file: file.clone(),
                },
            ),
            Err(e) => (
                Approval::Session(rule.clone()),
                Answered::SessionOnly {
                    rule,
                    why: e.to_string(),
                },
            ),
        }
    }

    /// The ids of the open questions, oldest first.
    #[cfg(test)]
    fn open(&self) -> Vec<String> {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let mut ids: Vec<(u64, String)> = open
            .keys()
            .map(|id| (id[1..].parse().unwrap_or(u64::MAX), id.clone()))
            .collect();
        ids.sort();
        ids.into_iter().map(|(_, id)| id).collect()
    }

    fn ask(&self, request: &ApprovalRequest<'_>) -> Approval {
        let id = format!("q{}", self.next.fetch_add(1, Ordering::Relaxed));
        let (reply, answer) = sync_channel(1);
        self.open.lock().unwrap_or_else(|p| p.into_inner()).insert(
            id.clone(),
            Open {
                scopes: request.scopes.to_vec(),
                reply,
                plan: request.plan.is_some(),
            },
        );
        let cancel = self.tokens.running();
        (self.emit)(SessionEvent::Question(Question {
            id: id.clone(),
            call_id: request.call_id.to_string(),
            tool: request.call.tool.to_string(),
            arguments: serde_json::to_string_pretty(request.call.args)
                .unwrap_or_else(|_| request.call.args.to_string()),
            reason: reason(request),
            scopes: request.scopes.to_vec(),
            preview: request.preview.clone(),
            agent: request.agent.map(str::to_string),
            plan: request.plan.map(str::to_string),
        }));
        loop {
            match answer.recv_timeout(Duration::from_millis(50)) {
                Ok(approval) => return approval,
                Err(RecvTimeoutError::Disconnected) => return Approval::Deny(None),
                Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => {
                    let withdrawn = self
                        .open
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&id)
                        .is_some();
                    if !withdrawn {
                        // Answered in the same moment: the answer stands.
                        if let Ok(approval) = answer.try_recv() {
                            return approval;
                        }
                    }
                    (self.emit)(SessionEvent::QuestionClosed {
                        id,
                        answered: Answered::Withdrawn,
                    });
                    return Approval::Deny(Some("the user cancelled the turn".into()));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

struct RoutedApprover(Arc<Router>);

impl Approver for RoutedApprover {
    fn approve(&self, request: &ApprovalRequest<'_>) -> Approval {
        self.0.ask(request)
    }
}

fn reason(request: &ApprovalRequest<'_>) -> String {
    match (&request.verdict.source, request.verdict.decision) {
        (Source::Rule { list, rule }, _) => format!("the `{list}` rule {rule} asks"),
        (Source::Protected { path }, _) => {
            format!("{path} is a configuration file: changes to it always ask")
        }
        (Source::LocalNetwork { origin }, _) => {
            format!("{origin} is on this machine or a private network: local fetches ask")
        }
        (Source::Fallback, Decision::Ask) => "writers and commands ask in this posture".into(),
        (Source::Fallback, _) => "no rule allows this call".into(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use reasonix_agent::permissions::{Call, Preview, ToolKind, Verdict};
    use reasonix_core::cancel::CancelToken;
    use std::sync::mpsc::{Receiver, channel};

    struct Asked {
        router: Arc<Router>,
        tokens: Arc<Tokens>,
        events: Receiver<SessionEvent>,
    }

    fn router(persist_to: Option<PathBuf>) -> Asked {
        let (tx, events) = channel();
        let tx = Mutex::new(tx);
        let emit: Emit = Arc::new(move |e| {
            let _ = tx.lock().unwrap().send(e);
        });
        let tokens = Arc::new(Tokens::default());
        Asked {
            router: Arc::new(Router::new(persist_to, tokens.clone(), emit)),
            tokens,
            events,
        }
    }

    /// Ask on another thread, as the agent does; the question's id and the asker.
    fn ask(asked: &Asked, scopes: &[&str]) -> (String, std::thread::JoinHandle<Approval>) {
        let approver = asked.router.approver();
        let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        let asker = std::thread::spawn(move || {
            let args = serde_json::json!({"command": "cargo test"});
            let call = Call {
                tool: "bash",
                kind: ToolKind::Shell,
                read_only: false,
                args: &args,
                workspace: std::path::Path::new("/w"),
                reach: None,
                own_rules: false,
            };
            let verdict = Verdict {
                decision: Decision::Ask,
                source: Source::Fallback,
                exact_literal: false,
            };
            approver.approve(&ApprovalRequest {
                call_id: "c1",
                call: &call,
                verdict: &verdict,
                scopes: &scopes,
                preview: &Preview::None,
                agent: None,
                plan: None,
            })
        });
        let SessionEvent::Question(q) = asked.events.recv().unwrap() else {
            panic!("expected a question");
        };
        assert_eq!((q.tool.as_str(), q.call_id.as_str()), ("bash", "c1"));
        (q.id, asker)
    }

    fn closed(asked: &Asked) -> (String, Answered) {
        match asked.events.recv().unwrap() {
            SessionEvent::QuestionClosed { id, answered } => (id, answered),
            other => panic!("expected a closed question, got {other:?}"),
        }
    }

    #[test]
    fn an_answer_names_its_question_and_is_never_wider_than_offered() {
        let asked = router(None);
        let (id, asker) = ask(&asked, &["Bash(cargo test:*)", "Bash"]);
        assert_eq!(asked.router.open(), vec![id.clone()]);
        // Unknown ids and rules the question did not offer change nothing.
        assert_eq!(
            asked.router.answer("q99", Answer::Once),
            Err(AnswerError::Unknown("q99".into()))
        );
        let wider = asked
            .router
            .answer(&id, Answer::Session(Some("Bash(rm:*)".into())))
            .unwrap_err();
        assert!(matches!(wider, AnswerError::NotOffered { .. }), "{wider}");
        assert_eq!(asked.router.open(), vec![id.clone()]);
        // The default is the narrowest scope shown.
        let answered = asked.router.answer(&id, Answer::Session(None)).unwrap();
        assert_eq!(answered, Answered::Session("Bash(cargo test:*)".into()));
        assert_eq!(
            asker.join().unwrap(),
            Approval::Session("Bash(cargo test:*)".into())
        );
        assert_eq!(closed(&asked), (id.clone(), answered));
        // Answered once only.
        assert!(matches!(
            asked.router.answer(&id, Answer::Once),
            Err(AnswerError::Unknown(_))
        ));
    }

    #[test]
    fn questions_get_ids_of_their_own() {
        let asked = router(None);
        let (first, a) = ask(&asked, &[]);
        asked.router.answer(&first, Answer::Once).unwrap();
        a.join().unwrap();
        closed(&asked);
        let (second, b) = ask(&asked, &[]);
        assert_ne!(first, second);
        // A question without scopes cannot be granted beyond the call.
        assert_eq!(
            asked.router.answer(&second, Answer::Always(None)),
            Err(AnswerError::NoScope(second.clone()))
        );
        asked
            .router
            .answer(&second, Answer::Deny(Some("use the test script".into())))
            .unwrap();
        assert_eq!(
            b.join().unwrap(),
            Approval::Deny(Some("use the test script".into()))
        );
    }

    #[test]
    fn cancelling_the_turn_withdraws_its_question() {
        let asked = router(None);
        let token = CancelToken::new();
        asked.tokens.submitted(&token);
        asked.tokens.begin(&token);
        let (id, asker) = ask(&asked, &["Bash"]);
        asked.tokens.cancel_all();
        assert!(matches!(asker.join().unwrap(), Approval::Deny(Some(_))));
        assert_eq!(closed(&asked), (id.clone(), Answered::Withdrawn));
        assert!(asked.router.open().is_empty());
        assert!(matches!(
            asked.router.answer(&id, Answer::Once),
            Err(AnswerError::Unknown(_))
        ));
    }

    #[test]
    fn always_writes_the_users_file_or_keeps_to_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "# mine\n").unwrap();
        let asked = router(Some(file.clone()));
        let (id, asker) = ask(&asked, &["Bash(cargo test:*)"]);
        let answered = asked.router.answer(&id, Answer::Always(None)).unwrap();
        assert_eq!(
            answered,
            Answered::Persisted {
                rule: "Bash(cargo test:*)".into(),
                file: file.clone()
            }
        );
        assert_eq!(
            asker.join().unwrap(),
            Approval::Persist("Bash(cargo test:*)".into())
        );
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains("# mine") && text.contains("Bash(cargo test:*)"),
            "{text}"
        );

        // A file that is not TOML is left as it was; the grant holds for the session.
        std::fs::write(&file, "permissions = [").unwrap();
        let asked = router(Some(file.clone()));
        let (id, asker) = ask(&asked, &["Bash"]);
        let answered = asked.router.answer(&id, Answer::Always(None)).unwrap();
        assert!(
            matches!(&answered, Answered::SessionOnly { rule, why } if rule == "Bash" && why.contains("config.toml")),
            "{answered:?}"
        );
        assert_eq!(asker.join().unwrap(), Approval::Session("Bash".into()));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "permissions = [");
    }
}
