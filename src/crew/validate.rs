//! Cross-file checks of a loaded crew: names, the registry against the agent files, the
//! references between definitions, and the configured routes.

use super::definition;
use super::registry::Status;
use super::{Crew, Diagnostic, Severity};

/// The error for an agent file the registry does not list, saying how to finish it.
fn unregistered(name: &str) -> String {
    if Crew::is_core(name) {
        format!("agent `{name}` has no row in the registry; add its row back to the registry")
    } else {
        // the registry row is the last thing `crew agents new` writes, so a file without one
        // is most often an interrupted `crew agents new`: the same command finishes it
        format!(
            "agent `{name}` has no row in the registry (an interrupted `crew agents new {name}` leaves this): run `crew agents new {name}` again to finish it, keeping the file as it is, or add its row to the registry by hand"
        )
    }
}

impl Crew {
    /// Adds the diagnostics that need the whole crew (one file's own problems are found when
    /// it is parsed).
    pub(super) fn validate(&mut self) {
        let mut diags = Vec::new();
        self.check_names(&mut diags);
        if !self.registry.agents.is_empty() || !self.registry.file.is_empty() {
            self.check_registry(&mut diags);
        }
        self.check_references(&mut diags);
        self.check_routes(&mut diags);
        self.diagnostics.extend(diags);
    }

    /// Every agent and skill has a distinct, well-formed name.
    fn check_names(&self, diags: &mut Vec<Diagnostic>) {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for d in self.agents.iter().chain(&self.skills) {
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == d.name) {
                diags.push(Diagnostic::error(
                    &d.file,
                    2,
                    &format!("duplicate name `{}` (also defined in {first})", d.name),
                ));
            } else {
                seen.push((&d.name, &d.file));
            }
            if !definition::valid_name(&d.name) {
                diags.push(Diagnostic::error(
                    &d.file,
                    2,
                    &format!(
                        "name `{}` must be lowercase letters, digits and hyphens",
                        d.name
                    ),
                ));
            }
        }
    }

    /// The registry's rows and the agent files agree, one row per agent.
    fn check_registry(&self, diags: &mut Vec<Diagnostic>) {
        let reg_file = &self.registry.file;
        for row in &self.registry.agents {
            if row.custom && Crew::is_core(&row.name) {
                diags.push(Diagnostic::error(
                    reg_file,
                    row.line,
                    &format!(
                        "custom agent `{}` uses a core agent's name; pick another name",
                        row.name
                    ),
                ));
            }
            if row.status == Status::Active && self.agent(&row.name).is_none() {
                diags.push(Diagnostic::error(
                    reg_file,
                    row.line,
                    &format!("registry row `{}` is active but agents/{}.md does not exist; add the file or set the row to disabled", row.name, row.name),
                ));
            }
        }
        let mut rows_seen: Vec<&str> = Vec::new();
        for row in &self.registry.agents {
            if rows_seen.contains(&row.name.as_str()) {
                diags.push(Diagnostic::error(
                    reg_file,
                    row.line,
                    &format!("duplicate registry row `{}`", row.name),
                ));
            }
            rows_seen.push(&row.name);
        }
        for a in &self.agents {
            if !self.registry.agents.iter().any(|r| r.name == a.name) {
                diags.push(Diagnostic::error(&a.file, 2, &unregistered(&a.name)));
            }
        }
    }

    /// Whether `d` is the error of an agent file without a registry row for `name`: what a
    /// `crew agents new NAME` killed between its file and its row leaves, and what running it
    /// again finishes. That command must not be refused for the very state it repairs.
    pub fn is_unregistered_error(d: &Diagnostic, name: &str) -> bool {
        d.severity == Severity::Error && d.message == unregistered(name)
    }

    /// A skill's source agent exists; an agent with an output schema is a leaf.
    fn check_references(&self, diags: &mut Vec<Diagnostic>) {
        for s in &self.skills {
            if let Some(src) = &s.source_agent
                && self.agent(src).is_none()
            {
                diags.push(Diagnostic::error(
                    &s.file,
                    2,
                    &format!("source agent `{src}` does not exist"),
                ));
            }
        }
        for a in &self.agents {
            if a.output_schema.is_some()
                && (a.capabilities.iter().any(|c| c == "task") || a.handoff)
            {
                diags.push(Diagnostic::error(
                    &a.file,
                    2,
                    "an agent with an output_schema is a leaf: it may not hand off (add `handoff: false` and drop the `task` capability)",
                ));
            }
        }
    }

    /// The default route and every route override name something this crew can run.
    fn check_routes(&self, diags: &mut Vec<Diagnostic>) {
        let config_file = self.config_file.as_deref().unwrap_or("config.yaml");
        let route = &self.config.default_route;
        if self.agent(route).is_none() && self.skill(route).is_none() {
            diags.push(Diagnostic::error(
                config_file,
                1,
                &format!("default_route `{route}` names no agent or skill of this crew"),
            ));
        }
        for o in &self.config.route_overrides {
            if self.lookup(&o.route).is_none() {
                diags.push(Diagnostic::error(
                    config_file,
                    1,
                    &format!(
                        "route_overrides names `{}`, which is no active agent or skill",
                        o.route
                    ),
                ));
            }
        }
    }
}
