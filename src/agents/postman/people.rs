//! Who a sender or attendee is: a People note (by its `email` property, its name or an alias)
//! and whether the user profile lists them as a VIP.

use crate::agents::common::{fold, link_value_name};
use crate::crew::Folders;
use crate::vault::{Note, Vault};
use yaml_serde::Value;

/// A known person: the People note's name (its link target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Person {
    pub note: String,
    pub path: String,
    pub emails: Vec<String>,
    names: Vec<String>,
}

/// The People notes of a vault and the user's VIP list, for matching senders.
#[derive(Debug, Default)]
pub(crate) struct Directory {
    pub people: Vec<Person>,
    /// VIP entries, folded: addresses, names or note names.
    vips: Vec<String>,
}

/// Every string of a property that may be a scalar or a list.
pub(crate) fn property_strings(note: &Note, key: &str) -> Vec<String> {
    match note.property(key) {
        Some(Value::Sequence(items)) => items
            .iter()
            .filter_map(crate::vault::note::scalar_to_string)
            .collect(),
        Some(v) => crate::vault::note::scalar_to_string(v)
            .into_iter()
            .collect(),
        None => Vec::new(),
    }
}

fn is_person(note: &Note, folders: &Folders) -> bool {
    if folders.in_templates(&note.path) {
        return false;
    }
    note.path.starts_with(&format!("{}/", folders.people))
        || note.property_str("type").is_some_and(|t| {
            matches!(
                t.to_lowercase().as_str(),
                "person" | "person-note" | "people" | "contact"
            )
        })
}

impl Directory {
    /// The People notes (the people folder, and `type: person` notes anywhere) and the VIPs of
    /// `Meta/user-profile.md`: its `vips` list (addresses, names or `[[links]]` to People notes).
    pub fn load(vault: &Vault, folders: &Folders) -> Directory {
        let people = vault
            .notes
            .iter()
            .filter(|n| is_person(n, folders))
            .map(|n| {
                let mut emails: Vec<String> = ["email", "emails", "e-mail", "mail"]
                    .iter()
                    .flat_map(|k| property_strings(n, k))
                    .map(|e| e.trim().trim_start_matches("mailto:").to_lowercase())
                    .filter(|e| e.contains('@'))
                    .collect();
                emails.dedup();
                let mut names = vec![fold(n.name())];
                names.extend(n.aliases.iter().map(|a| fold(a)));
                names.extend(property_strings(n, "name").iter().map(|a| fold(a)));
                names.retain(|s| !s.is_empty());
                Person {
                    note: n.name().to_string(),
                    path: n.path.clone(),
                    emails,
                    names,
                }
            })
            .collect();
        let vips = vault
            .note(&format!("{}/user-profile.md", folders.meta))
            .map(|p| {
                ["vips", "vip", "vip-contacts"]
                    .iter()
                    .flat_map(|k| property_strings(p, k))
                    .map(|v| vip_key(&v))
                    .filter(|v| !v.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Directory { people, vips }
    }

    /// The People note for an address and display name: the address decides first.
    pub fn find(&self, email: Option<&str>, name: Option<&str>) -> Option<&Person> {
        if let Some(e) = email
            .map(|e| e.trim().to_lowercase())
            .filter(|e| !e.is_empty())
            && let Some(p) = self.people.iter().find(|p| p.emails.contains(&e))
        {
            return Some(p);
        }
        let n = fold(name?);
        if n.is_empty() {
            return None;
        }
        self.people.iter().find(|p| p.names.contains(&n))
    }

    /// Whether the user profile lists this sender as a VIP (by address, name or People note).
    pub(crate) fn is_vip(&self, email: Option<&str>, name: Option<&str>) -> bool {
        if self.vips.is_empty() {
            return false;
        }
        let mut keys = Vec::new();
        if let Some(e) = email {
            keys.push(e.trim().to_lowercase());
        }
        if let Some(n) = name {
            keys.push(fold(n));
        }
        if let Some(p) = self.find(email, name) {
            keys.push(fold(&p.note));
            keys.extend(p.emails.iter().cloned());
        }
        keys.iter().any(|k| !k.is_empty() && self.vips.contains(k))
    }
}

/// A VIP entry as compared: an address lower-cased, anything else folded like a name.
fn vip_key(raw: &str) -> String {
    let s = raw.trim().trim_start_matches("mailto:");
    if s.contains('@') && !s.starts_with("[[") {
        s.to_lowercase()
    } else {
        fold(&link_value_name(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::Vault;

    fn vault(notes: &[(&str, &str)]) -> Vault {
        let notes = notes.iter().map(|(p, t)| Note::parse_text(*p, t)).collect();
        Vault::from_notes("/v".into(), notes, Vec::new())
    }

    #[test]
    fn matches_by_address_name_and_alias_and_reads_vips() {
        let v = vault(&[
            (
                "05-People/Ana Lima.md",
                "---\nemail: [ana@example.org, Ana.Lima@work.example]\naliases: [Annie]\n---\n",
            ),
            ("05-People/Bo Chen.md", "---\ntype: person\n---\n"),
            (
                "Meta/user-profile.md",
                "---\nvips:\n  - \"[[Bo Chen]]\"\n  - boss@example.com\n---\n",
            ),
        ]);
        let d = Directory::load(&v, &Folders::default());
        assert_eq!(
            d.find(Some("ana.lima@work.example"), None)
                .map(|p| &p.note[..]),
            Some("Ana Lima")
        );
        assert_eq!(
            d.find(None, Some("annie")).map(|p| &p.note[..]),
            Some("Ana Lima")
        );
        assert_eq!(d.find(Some("x@y.z"), Some("Nobody")), None);
        assert!(d.is_vip(Some("bo@elsewhere.org"), Some("Bo Chen")));
        assert!(d.is_vip(Some("Boss@Example.com"), None));
        assert!(!d.is_vip(Some("ana@example.org"), Some("Ana Lima")));
    }
}
