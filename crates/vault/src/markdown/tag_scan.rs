//! Which `#` starts a tag, beyond the character rules of [`inline_tags`]: none inside a link.

use std::ops::Range;

use super::{FIND_MD_LINK, MdLinkScanner, inline_tags, wikilinks};

/// [`inline_tags`] outside links: a `#` inside `[[…]]` is a heading or a word of the target,
/// and one inside a Markdown link's text or destination is part of the link, not a tag.
pub(crate) fn tags_outside_links(masked: &str) -> Vec<(Range<usize>, String)> {
    let mut tags = inline_tags(masked);
    if tags.is_empty() || memchr::memchr(b'[', masked.as_bytes()).is_none() {
        return tags;
    }
    let mut links: Vec<Range<usize>> = wikilinks(masked).into_iter().map(|l| l.span).collect();
    if FIND_MD_LINK.find(masked.as_bytes()).is_some() {
        links.extend(MdLinkScanner::new(masked).map(|m| m.whole));
    }
    if links.is_empty() {
        return tags;
    }
    tags.retain(|(span, _)| {
        !links
            .iter()
            .any(|l| l.start < span.end && span.start < l.end)
    });
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_inside_links_are_not_tags() {
        let tags: Vec<_> = tags_outside_links("[[A #b]] [see #c](x.md) [d](https://e/ #f) #g [h]")
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(tags, vec!["g"]);
    }

    #[test]
    fn html_css_entities_and_fragments_are_not_tags() {
        let text = "<style>\n#main { color: #1a1a1a; }\n</style>\n\
            <span style=\"color: #fff\"> #kept</span> <font color=#ffcc00>x</font>\n\
            &#123; <a href=\"#section\">a</a> https://x.y/#frag [a](#heading) #ffcc00 #123";
        let tags: Vec<_> = inline_tags(text).into_iter().map(|t| t.1).collect();
        // a colour in prose is a tag for Obsidian; in markup it is not
        assert_eq!(tags, vec!["kept", "ffcc00"]);
    }
}
