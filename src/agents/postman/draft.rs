//! "draft a reply to email 3" / "draft a reply to Ana": the model writes a reply, crew keeps
//! it as a `status: draft` note in `<inbox>/Drafts/` (through the gate: journaled, undoable).
//! Nothing is ever sent: the mail source is only read. Without a model the postman says what
//! to configure and writes nothing; a failing model writes nothing either.

use super::choose::{self, Request};
use super::language::Writer;
use super::mail::Mail;
use super::people::Directory;
use super::state::PostIt;
use super::{inert, md_inline, one_line, q, source_or_setup};
use crate::agents::common;
use crate::agents::{Ctx, NativeOutput};
use crate::crew::ModelSpec;
use crate::gate::GateError;

/// Japanese has no spaces between words: these ask for a draft wherever they appear.
const DRAFT_MARKS_JA: &[&str] = &["下書き", "返信"];

/// Folder of the drafts, under the inbox role (the sorter files only the inbox's own notes).
pub(crate) const DRAFTS_FOLDER: &str = "Drafts";

/// Characters of the original quoted under a draft.
const QUOTED_CHARS: usize = 4_000;

/// Whether a request asks for a reply draft.
pub(crate) fn asks_for_draft(ctx: &Ctx) -> bool {
    ctx.says(crate::agents::cue::Cue::Draft)
}

/// A Japanese request with its words spaced out, so "メール2" reads as "mail 2".
fn spaced(message: &str) -> String {
    if !DRAFT_MARKS_JA.iter().any(|m| message.contains(m)) {
        return message.to_string();
    }
    let mut s = message.replace("メール", " mail ");
    for w in ["下書き", "返信", "への", "番", "の", "を", "に", "へ"] {
        s = s.replace(w, " ");
    }
    s
}

pub(crate) fn draft_reply(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let postit = PostIt::parse(ctx.postit.as_deref());
    let Some(writer) = Writer::for_ctx(ctx) else {
        return Ok(done(needs_model(ctx), &postit));
    };
    let source = match source_or_setup(ctx) {
        Ok(s) => s,
        Err(out) => return Ok(out),
    };
    let request = Request::of(
        &spaced(&ctx.step.message),
        crate::text::word_list("draft_verbs"),
        false,
    );
    let dir = Directory::load(ctx.gate.vault(), &ctx.config.folders);
    let (mails, problems) = match choose::choose(&source, &postit.listing(), &request, &dir) {
        Ok(found) => found,
        Err(not) => return Ok(done(not.to_string(), &postit)),
    };
    problems.iter().for_each(|p| tracing::warn!("postman: {p}"));
    let Some(mail) = mails.first() else {
        let mut text =
            "That email is no longer in the mailbox; say \"check my email\" for a fresh listing.\n"
                .to_string();
        for p in &problems {
            text.push_str(&format!("- skipped: {p}\n"));
        }
        return Ok(done(text, &postit));
    };
    let mut writer = match writer {
        Ok(w) => w,
        Err(e) => return Ok(done(fallback(&e.to_string(), mail, None), &postit)),
    };
    if ctx.gate.is_dry_run() {
        // a plan spends no tokens: the model is asked only when the draft will be kept
        return Ok(done(
            format!(
                "Would ask the model `{}` for a reply to **{}** — {} and keep it as a draft note in `{}/{DRAFTS_FOLDER}/`. Nothing would be sent.\n",
                writer.id,
                md_inline(&mail.subject),
                md_inline(&mail.sender()),
                ctx.config.folders.inbox
            ),
            &postit,
        ));
    }
    let user = ctx
        .gate
        .vault()
        .note(&format!("{}/user-profile.md", ctx.config.folders.meta))
        .and_then(|n| n.property_str("name"));
    let reply = writer.draft_reply(mail, &ctx.step.message, user.as_deref());
    let data = |path: Option<&str>, error: Option<&str>, w: &Writer| {
        serde_json::json!({
            "draft": path, "model": w.id, "error": error, "subject": mail.subject,
            "in_reply_to": mail.message_id, "tokens_in": w.tokens_in, "tokens_out": w.tokens_out,
        })
    };
    let reply = match reply {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!("postman: the model {} could not draft: {e}", writer.id);
            let e = e.to_string();
            ctx.data = Some(data(None, Some(&e), &writer));
            return Ok(done(fallback(&e, mail, Some(&writer.id)), &postit));
        }
    };
    let person = dir
        .find(mail.from_email.as_deref(), mail.from_name.as_deref())
        .map(|p| p.note.clone());
    let note = DraftNote {
        mail,
        reply: &reply,
        person: person.as_deref(),
        model: &writer.id,
        source: source.label(),
        today: ctx.today(),
    };
    let path = write(ctx, &note)?;
    ctx.data = Some(data(Some(&path), None, &writer));
    let mut postit = postit;
    postit.set(
        "draft",
        format!(
            "{}: reply to \"{}\" in {path}",
            ctx.today(),
            inert(&one_line(&mail.subject))
        ),
    );
    Ok(done(report(&note, &path), &postit))
}

fn done(text: String, postit: &PostIt) -> NativeOutput {
    NativeOutput {
        text,
        postit: postit.render(),
        // the answer already says what happened; a second pass on the model has no mail to read
        attention: false,
    }
}

/// Without a model: what a draft needs, and that the rest works without one.
fn needs_model(ctx: &Ctx) -> String {
    let step = ctx.step;
    let tier = match ctx.crew.definition(step.kind, &step.name).map(|d| &d.model) {
        Some(ModelSpec::Tier(t)) => t.clone(),
        _ => "mid".to_string(),
    };
    format!(
        "**A reply draft needs a language model**, and none is configured for the postman. Nothing was written, and mail is never sent: a draft is a note in `{}/{DRAFTS_FOLDER}/` for you to copy into your mail program.\n\nTo enable drafts (and a one-line summary per message in \"check my email\"), map the postman's tier in `.crew/config.yaml`:\n\n```yaml\nmodels:\n  {tier}: claude-sonnet-4-5   # or gpt-4.1-mini, gemini-2.5-flash, ollama/llama3.2\n```\n\nand set the provider's key (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `GEMINI_API_KEY`) or `OLLAMA_HOST`. `crew doctor` shows what is configured. Without a model the postman still lists, saves and imports.\n",
        ctx.config.folders.inbox
    )
}

/// A model that failed: the native answer, which names the message and writes nothing.
fn fallback(error: &str, mail: &Mail, model: Option<&str>) -> String {
    let who = match model {
        Some(id) => format!("The model `{id}`"),
        None => "The configured model".to_string(),
    };
    format!(
        "**{who} could not write the draft ({error}).** No draft was written and nothing was sent.\n\nThe email: **{}** — {}. Ask again later, or say \"save email …\" to keep it as a note.\n",
        md_inline(&mail.subject),
        md_inline(&mail.sender())
    )
}

/// Everything a draft note is made of.
struct DraftNote<'a> {
    mail: &'a Mail,
    reply: &'a str,
    person: Option<&'a str>,
    model: &'a str,
    source: &'a str,
    today: String,
}

impl DraftNote<'_> {
    fn subject(&self) -> String {
        let s = one_line(&self.mail.subject);
        let s = s.as_str();
        if s.to_lowercase().starts_with("re:") {
            s.to_string()
        } else {
            format!("Re: {s}")
        }
    }

    fn render(&self) -> String {
        let m = self.mail;
        let to = m.from_email.clone().unwrap_or_else(|| m.sender());
        let mut fm = format!(
            "---\ntype: email-draft\ndate: {}\ntags: [email, draft]\nstatus: draft\nto: {}\nsubject: {}\n",
            q(&self.today),
            q(&to),
            q(&self.subject())
        );
        if let Some(id) = &m.message_id {
            fm.push_str(&format!("in-reply-to: {}\n", q(id)));
        }
        if let Some(p) = self.person {
            fm.push_str(&format!("person: {}\n", q(&format!("[[{p}]]"))));
        }
        fm.push_str(&format!(
            "model: {}\nsource: {}\n---\n",
            q(self.model),
            self.source
        ));
        let mut body = format!("# {}\n\n", inert(&self.subject()));
        body.push_str(&format!(
            "A draft by the model `{}`, not sent: copy it into your mail program, edit it, and send it yourself.\n\n## Reply\n\n",
            self.model
        ));
        // the model read a stranger's mail: its reply is outside text as much as the mail
        body.push_str(&inert(self.reply.trim()));
        body.push_str("\n\n## Original\n\n");
        body.push_str(&format!("- **From**: {}\n", inert(&one_line(&m.sender()))));
        if let Some(d) = m.date {
            body.push_str(&format!("- **Sent**: {}\n", d.format("%Y-%m-%d %H:%M")));
        }
        body.push('\n');
        let text: String = m.text.trim().chars().take(QUOTED_CHARS).collect();
        for line in inert(&text).lines() {
            body.push_str(&format!("> {line}\n"));
        }
        if m.text.trim().chars().count() > QUOTED_CHARS {
            body.push_str("> […]\n");
        }
        format!("{fm}{body}")
    }
}

/// Writes the draft note whole, in one gate operation.
fn write(ctx: &mut Ctx, note: &DraftNote) -> Result<String, GateError> {
    let name = common::convention_name(&note.today, "reply-draft", &note.mail.subject);
    let path = format!("{}/{DRAFTS_FOLDER}/{name}.md", ctx.config.folders.inbox);
    let path = ctx.gate.create(&path, note.render().as_bytes())?;
    common::log_change(
        ctx,
        "postman",
        &format!(
            "reply draft to \"{}\" written as {path} (not sent)",
            inert(&one_line(&note.mail.subject))
        ),
    )?;
    Ok(path)
}

fn report(note: &DraftNote, path: &str) -> String {
    let mut text = format!(
        "Drafted a reply to **{}** — {} as `{path}` (model `{}`). **Nothing was sent**: copy it into your mail program when it reads right.\n\n",
        md_inline(&note.mail.subject),
        md_inline(&note.mail.sender()),
        note.model
    );
    for line in inert(note.reply.trim()).lines() {
        text.push_str(&format!("> {line}\n"));
    }
    text.push_str("\n`crew undo` removes the draft.\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn japanese_requests_read_as_numbered_mail() {
        let r = Request::of(
            &spaced("メール2への返信の下書き"),
            crate::text::word_list("draft_verbs"),
            false,
        );
        assert_eq!(r.number, Some(2));
        assert!(r.words.is_empty(), "{:?}", r.words);
        assert_eq!(
            spaced("draft a reply to email 2"),
            "draft a reply to email 2"
        );
    }

    #[test]
    fn a_draft_note_holds_its_frontmatter_the_reply_and_the_quoted_original() {
        let raw = "From: Ana Lima <ana@example.org>\r\nSubject: Quarterly numbers\r\nMessage-ID: <q1@example.org>\r\n\r\nLine one.\r\nLine <% two %>.\r\n";
        let m = Mail::parse(raw.as_bytes(), "maildir:1", "1").expect("mail");
        let note = DraftNote {
            mail: &m,
            reply: "Thanks, Ana.\n\nMe",
            person: Some("Ana Lima"),
            model: "gpt-4.1-mini",
            source: "maildir",
            today: "2026-12-01".into(),
        };
        let t = note.render();
        for want in [
            "status: draft\n",
            "to: \"ana@example.org\"\n",
            "subject: \"Re: Quarterly numbers\"\n",
            "in-reply-to: \"q1@example.org\"\n",
            "person: \"[[Ana Lima]]\"\n",
            "## Reply\n\nThanks, Ana.\n\nMe\n",
            "> Line one.\n> Line <\\% two %>.\n",
        ] {
            assert!(t.contains(want), "{want:?} missing in:\n{t}");
        }
        assert!(t.starts_with("---\ntype: email-draft\n"));
    }
}
