//! Word comparisons shared by search and the tag garden.

/// Whether `b` is `a` with at most one character inserted, deleted or replaced.
pub(crate) fn edit_distance_at_most_one(a: &str, b: &str) -> bool {
    // called for every word of every note against each term: ASCII words are compared as
    // bytes without allocating; a length gap of more than one edit can answer at once
    if a.is_ascii() && b.is_ascii() {
        return within_one_edit(a.as_bytes(), b.as_bytes());
    }
    // one inserted or replaced character changes the length by at most 4 bytes
    if a.len().abs_diff(b.len()) > 4 {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    within_one_edit(&a, &b)
}

fn within_one_edit<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (mut i, mut j, mut edits) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            i += 1;
            j += 1;
            continue;
        }
        edits += 1;
        if edits > 1 {
            return false;
        }
        match a.len().cmp(&b.len()) {
            std::cmp::Ordering::Greater => i += 1,
            std::cmp::Ordering::Less => j += 1,
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    edits + (a.len() - i) + (b.len() - j) <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_edit_apart() {
        assert!(edit_distance_at_most_one("meeting", "meetng"));
        assert!(edit_distance_at_most_one("meeting", "meetings"));
        assert!(edit_distance_at_most_one("cafe", "café"));
        assert!(!edit_distance_at_most_one("meeting", "mating"));
        assert!(!edit_distance_at_most_one("ab", "abcd"));
    }
}
