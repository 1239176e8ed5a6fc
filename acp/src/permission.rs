//! An approval question as ACP's `session/request_permission`, and the editor's choice as the
//! session's answer. Three options: allow this call once, allow what the narrowest rule the
//! question offers covers for the rest of the session, or reject. "Always" in an editor is
//! kept to the session: a rule is written to the user's configuration only from Reasonix's own
//! front ends, where the file it goes to is shown.

use crate::translate;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    SessionId, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use reasonix_protocol::FileChange;
use reasonix_session::Answer;
use std::path::Path;

pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_SESSION: &str = "allow_session";
pub const REJECT: &str = "reject";

/// What the editor is asked, for question `question` of `session`.
pub struct Asked<'a> {
    pub call_id: &'a str,
    pub tool: &'a str,
    pub arguments: &'a str,
    pub reason: &'a str,
    pub scopes: &'a [String],
    pub changes: Option<&'a [FileChange]>,
    pub plan: Option<&'a str>,
}

pub fn request(session: &str, asked: &Asked<'_>, cwd: &Path) -> RequestPermissionRequest {
    let call = translate::tool_call(asked.call_id, asked.tool, asked.arguments, cwd);
    let mut fields = ToolCallUpdateFields::new()
        .title(match asked.plan {
            Some(_) => "Approve the plan and start".to_string(),
            None => format!("{} ({})", call.title, asked.reason),
        })
        .kind(call.kind)
        .status(ToolCallStatus::Pending)
        .locations(call.locations.clone());
    let mut content = translate::question_diffs(asked.changes, cwd);
    if let Some(plan) = asked.plan {
        content.push(plan.to_string().into());
    }
    if !content.is_empty() {
        fields = fields.content(content);
    }
    let mut options = vec![PermissionOption::new(
        ALLOW_ONCE,
        "Allow once",
        PermissionOptionKind::AllowOnce,
    )];
    if let Some(rule) = asked.scopes.first() {
        options.push(PermissionOption::new(
            ALLOW_SESSION,
            format!("Allow {rule} for this session"),
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(PermissionOption::new(
        REJECT,
        "Reject",
        PermissionOptionKind::RejectOnce,
    ));
    RequestPermissionRequest::new(
        SessionId::new(session.to_string()),
        ToolCallUpdate::new(asked.call_id.to_string(), fields),
        options,
    )
}

/// The session's answer for the editor's choice; a cancelled request is a refusal.
pub fn answer(outcome: &RequestPermissionOutcome, scopes: &[String]) -> Answer {
    match outcome {
        RequestPermissionOutcome::Selected(chosen) => match &*chosen.option_id.0 {
            ALLOW_ONCE => Answer::Once,
            ALLOW_SESSION => Answer::Session(scopes.first().cloned()),
            _ => Answer::Deny(Some("The user rejected this call in the editor.".into())),
        },
        _ => Answer::Deny(Some(
            "The editor cancelled the question; the call was not made.".into(),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::SelectedPermissionOutcome;

    #[test]
    fn the_question_offers_once_the_narrowest_rule_for_the_session_and_reject() {
        let scopes = vec!["Write(notes.txt)".to_string(), "Write".to_string()];
        let changes = vec![FileChange {
            path: "notes.txt".into(),
            kind: "modify".into(),
            old_text: Some("old\n".into()),
            new_text: Some("new\n".into()),
        }];
        let asked = Asked {
            call_id: "c1",
            tool: "write_file",
            arguments: r#"{"path":"notes.txt","content":"new\n"}"#,
            reason: "writers ask",
            scopes: &scopes,
            changes: Some(&changes),
            plan: None,
        };
        let wire = serde_json::to_value(request("s1", &asked, Path::new("/ws"))).unwrap();
        let options: Vec<(&str, &str)> = wire["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["optionId"].as_str().unwrap(), o["kind"].as_str().unwrap()))
            .collect();
        assert_eq!(
            options,
            [
                ("allow_once", "allow_once"),
                ("allow_session", "allow_always"),
                ("reject", "reject_once")
            ]
        );
        assert_eq!(
            wire["options"][1]["name"],
            "Allow Write(notes.txt) for this session"
        );
        assert_eq!(wire["toolCall"]["content"][0]["newText"], "new\n");
        assert_eq!(wire["toolCall"]["locations"][0]["path"], "/ws/notes.txt");

        let pick = |id: &str| {
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_string()))
        };
        assert_eq!(answer(&pick(ALLOW_ONCE), &scopes), Answer::Once);
        assert_eq!(
            answer(&pick(ALLOW_SESSION), &scopes),
            Answer::Session(Some("Write(notes.txt)".into()))
        );
        assert!(matches!(answer(&pick(REJECT), &scopes), Answer::Deny(_)));
        assert!(matches!(answer(&pick("made-up"), &scopes), Answer::Deny(_)));
        assert!(matches!(
            answer(&RequestPermissionOutcome::Cancelled, &scopes),
            Answer::Deny(_)
        ));
    }
}
