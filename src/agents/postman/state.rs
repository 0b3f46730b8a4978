//! The postman's post-it as `key: value` lines, so that one mode (mail, calendar, meeting prep)
//! rewrites its own lines and keeps the others'.

/// The post-it's lines, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PostIt {
    lines: Vec<(String, String)>,
}

/// Keys the postman writes; other lines of an older post-it are dropped.
const KEYS: &[&str] = &[
    "mail",
    "mail-mark",
    "imap-mark",
    "listing",
    "saved",
    "events",
    "prep",
];

impl PostIt {
    pub fn parse(body: Option<&str>) -> PostIt {
        let mut lines = Vec::new();
        for l in body.unwrap_or("").lines() {
            if let Some((k, v)) = l.split_once(':') {
                let k = k.trim().trim_start_matches("- ").to_string();
                if KEYS.contains(&k.as_str()) {
                    lines.push((k, v.trim().to_string()));
                }
            }
        }
        PostIt { lines }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.lines
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        let value = value.into();
        match self.lines.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.lines.push((key.to_string(), value)),
        }
    }

    pub fn render(&self) -> String {
        let mut sorted = self.lines.clone();
        sorted.sort_by_key(|(k, _)| KEYS.iter().position(|x| x == k));
        sorted
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The message keys of the last listing, by the number shown.
    pub fn listing(&self) -> Vec<(usize, String)> {
        self.get("listing")
            .unwrap_or("")
            .split_whitespace()
            .filter_map(|p| {
                let (n, k) = p.split_once('=')?;
                Some((n.parse().ok()?, k.to_string()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_other_modes_lines() {
        let mut p = PostIt::parse(Some("mail-mark: 12 a\nevents: 3 imported\nnoise line\n"));
        p.set("events", "4 imported");
        p.set("listing", "1=maildir:a 2=maildir:b");
        assert_eq!(
            p.render(),
            "mail-mark: 12 a\nlisting: 1=maildir:a 2=maildir:b\nevents: 4 imported"
        );
        assert_eq!(p.listing()[1], (2, "maildir:b".to_string()));
    }
}
