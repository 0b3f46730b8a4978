//! The link graph of a vault's content notes: the six-metric graph audit, bridge notes, and
//! neighbourhoods.
//!
//! Graph health score (0–100), weighted:
//! orphan rate 25 % (100 − 5·orphan %), average links per note 20 % (100 between 3 and 5, minus
//! 25 per link outside that band), MOC coverage 20 % (% of notes reachable from a MOC),
//! cluster connectivity 15 % (100 / number of connected components), dead-end rate 10 %
//! (100 − 5·dead-end %), reciprocal links 10 % (2·reciprocal %, at most 100).
//!
//! A MOC is a note in the MOC folder, a note typed or tagged `moc`, a folder note (a folder's
//! own map: `X/X.md`, `X/_index.md`, …), or a note whose name says so (`Index_Python`,
//! `Cooking MOC`).

use std::collections::{BTreeSet, VecDeque};

use serde::Serialize;

use crate::crew::Folders;
use crate::vault::Vault;

/// One metric of the graph score.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Metric {
    pub name: &'static str,
    /// Its weight in the score, in percent.
    pub weight: f64,
    /// Its score, 0–100.
    pub score: f64,
    /// The measured value, in words ("12 % of notes have no incoming link").
    pub measured: String,
}

/// What the graph audit found. Note ids index `vault.notes`.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct GraphAudit {
    pub notes: usize,
    pub edges: usize,
    /// Content notes no other note links to.
    pub orphans: Vec<usize>,
    /// Content notes that link to no other note.
    pub dead_ends: Vec<usize>,
    pub components: usize,
    pub largest_component: usize,
    pub avg_links: f64,
    pub mocs: usize,
    pub moc_coverage: f64,
    pub reciprocal_pct: f64,
    pub score: u32,
    pub metrics: Vec<Metric>,
    /// (note, incoming, outgoing), most connected first.
    pub most_connected: Vec<(usize, usize, usize)>,
}

/// Notes that are content: not crew's meta notes, not templates.
pub(crate) fn is_content(path: &str, f: &Folders) -> bool {
    !(path.starts_with(&format!("{}/", f.meta)) || path.starts_with(&format!("{}/", f.templates)))
}

/// Whether a note is a map of content (see the module docs).
pub(crate) fn is_moc(vault: &Vault, i: usize, f: &Folders) -> bool {
    let n = &vault.notes[i];
    n.path.starts_with(&format!("{}/", f.moc))
        || n.property_str("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("moc"))
        || n.tags_normalized().iter().any(|t| t == "moc")
        || crate::vault::folder_note::is_inside_folder_note(&n.path)
        || names_a_map(n.name())
}

/// A name that says the note is a map: a word `moc` or `index` in it (`Index_Python`,
/// `Cooking MOC`), or "map of content(s)".
fn names_a_map(name: &str) -> bool {
    let normal = crate::text::normalize(&name.replace('_', " "));
    crate::text::words(&normal).any(|w| w == "moc" || w == "index")
        || normal.contains("map of content")
}

/// The content graph: distinct links between different content notes.
pub(crate) struct Graph {
    pub content: Vec<bool>,
    pub edges: BTreeSet<(usize, usize)>,
    /// Neighbours either way.
    pub undirected: Vec<Vec<usize>>,
    pub out: Vec<Vec<usize>>,
    pub incoming: Vec<Vec<usize>>,
}

impl Graph {
    pub fn of(vault: &Vault, f: &Folders) -> Graph {
        let content: Vec<bool> = vault.notes.iter().map(|x| is_content(&x.path, f)).collect();
        let edges: BTreeSet<(usize, usize)> = vault
            .edges()
            .into_iter()
            .filter(|&(a, b)| a != b && content[a] && content[b])
            .collect();
        Graph::from_edges(content, edges)
    }

    /// The graph of `content.len()` notes with these links.
    fn from_edges(content: Vec<bool>, edges: BTreeSet<(usize, usize)>) -> Graph {
        let n = content.len();
        let mut undirected = vec![Vec::new(); n];
        let mut out = vec![Vec::new(); n];
        let mut incoming = vec![Vec::new(); n];
        for &(a, b) in &edges {
            out[a].push(b);
            incoming[b].push(a);
            undirected[a].push(b);
            undirected[b].push(a);
        }
        for v in &mut undirected {
            v.sort_unstable();
            v.dedup();
        }
        Graph {
            content,
            edges,
            undirected,
            out,
            incoming,
        }
    }

    fn content_ids(&self) -> Vec<usize> {
        (0..self.content.len())
            .filter(|&i| self.content[i])
            .collect()
    }

    /// The size of each connected component (links taken either way).
    pub(crate) fn component_sizes(&self) -> Vec<usize> {
        let mut comp = vec![false; self.content.len()];
        let mut sizes = Vec::new();
        for s in self.content_ids() {
            if comp[s] {
                continue;
            }
            comp[s] = true;
            let mut size = 0;
            let mut q = VecDeque::from([s]);
            while let Some(x) = q.pop_front() {
                size += 1;
                for &y in &self.undirected[x] {
                    if !comp[y] {
                        comp[y] = true;
                        q.push_back(y);
                    }
                }
            }
            sizes.push(size);
        }
        sizes
    }

    /// Notes reachable by following links out of `starts`.
    fn reachable_from(&self, starts: &[usize]) -> Vec<bool> {
        let mut seen = vec![false; self.content.len()];
        let mut q: VecDeque<usize> = starts.iter().copied().collect();
        for &m in starts {
            seen[m] = true;
        }
        while let Some(x) = q.pop_front() {
            for &y in &self.out[x] {
                if !seen[y] {
                    seen[y] = true;
                    q.push_back(y);
                }
            }
        }
        seen
    }

    /// Bridge notes: notes whose removal splits their cluster in two or more (articulation
    /// points of the undirected graph), with the sizes of the parts they hold together,
    /// largest effect first.
    pub(crate) fn bridges(&self) -> Vec<(usize, Vec<usize>)> {
        let n = self.content.len();
        let mut order = vec![usize::MAX; n];
        let mut low = vec![0usize; n];
        let mut size = vec![1usize; n];
        // for each note, the sizes of the subtrees below it that only it connects
        let mut below: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut out = Vec::new();
        let mut clock = 0;
        for root in self.content_ids() {
            if order[root] != usize::MAX {
                continue;
            }
            let mut visited = vec![root];
            // iterative depth-first search: (note, parent, next neighbour index)
            let mut stack: Vec<(usize, usize, usize)> = vec![(root, usize::MAX, 0)];
            order[root] = clock;
            low[root] = clock;
            clock += 1;
            while let Some(top) = stack.last_mut() {
                let (v, parent) = (top.0, top.1);
                if let Some(&w) = self.undirected[v].get(top.2) {
                    top.2 += 1;
                    if order[w] == usize::MAX {
                        order[w] = clock;
                        low[w] = clock;
                        clock += 1;
                        visited.push(w);
                        stack.push((w, v, 0));
                    } else if w != parent {
                        low[v] = low[v].min(order[w]);
                    }
                    continue;
                }
                stack.pop();
                if parent == usize::MAX {
                    continue;
                }
                low[parent] = low[parent].min(low[v]);
                size[parent] += size[v];
                if parent == root || low[v] >= order[parent] {
                    below[parent].push(size[v]);
                }
            }
            let total = size[root];
            for v in visited {
                let mut parts = std::mem::take(&mut below[v]);
                if v != root {
                    // the side of the note's parent: the rest of its cluster
                    let rest = total - 1 - parts.iter().sum::<usize>();
                    if parts.is_empty() || rest == 0 {
                        continue;
                    }
                    parts.push(rest);
                }
                if parts.len() >= 2 {
                    parts.sort_unstable_by(|a, b| b.cmp(a));
                    out.push((v, parts));
                }
            }
        }
        // the bridge whose smaller sides are biggest matters most
        out.sort_by_key(|(v, p)| (std::cmp::Reverse(p.iter().skip(1).sum::<usize>()), *v));
        out
    }

    /// Notes within `depth` links of `center` (either way), by distance: ring 1, ring 2, …
    pub(crate) fn rings(&self, center: usize, depth: usize) -> Vec<Vec<usize>> {
        let mut dist = vec![usize::MAX; self.content.len()];
        dist[center] = 0;
        let mut rings: Vec<Vec<usize>> = vec![Vec::new(); depth];
        let mut q = VecDeque::from([center]);
        while let Some(x) = q.pop_front() {
            if dist[x] == depth {
                continue;
            }
            for &y in &self.undirected[x] {
                if dist[y] == usize::MAX {
                    dist[y] = dist[x] + 1;
                    rings[dist[y] - 1].push(y);
                    q.push_back(y);
                }
            }
        }
        rings
    }
}

/// Audits the link graph of the content notes (see the module docs for the score).
pub(crate) fn graph_audit(vault: &Vault, f: &Folders) -> GraphAudit {
    let g = Graph::of(vault, f);
    let idx = g.content_ids();
    let total = idx.len().max(1) as f64;
    let orphans: Vec<usize> = idx
        .iter()
        .copied()
        .filter(|&i| g.incoming[i].is_empty())
        .collect();
    let dead_ends: Vec<usize> = idx
        .iter()
        .copied()
        .filter(|&i| g.out[i].is_empty())
        .collect();
    let sizes = g.component_sizes();
    let mocs: Vec<usize> = idx
        .iter()
        .copied()
        .filter(|&i| is_moc(vault, i, f))
        .collect();
    let seen = g.reachable_from(&mocs);
    let covered = idx.iter().filter(|&&i| seen[i]).count();
    let reciprocal = g
        .edges
        .iter()
        .filter(|&&(a, b)| g.edges.contains(&(b, a)))
        .count();
    let orphan_pct = orphans.len() as f64 * 100.0 / total;
    let dead_pct = dead_ends.len() as f64 * 100.0 / total;
    let avg = g.edges.len() as f64 / total;
    let moc_cov = covered as f64 * 100.0 / total;
    let recip_pct = if g.edges.is_empty() {
        0.0
    } else {
        reciprocal as f64 * 100.0 / g.edges.len() as f64
    };
    let metrics = metrics(orphan_pct, avg, moc_cov, sizes.len(), dead_pct, recip_pct);
    let score = (metrics.iter().map(|m| m.weight * m.score).sum::<f64>() / 100.0).round() as u32;
    let mut most: Vec<(usize, usize, usize)> = idx
        .iter()
        .map(|&i| (i, g.incoming[i].len(), g.out[i].len()))
        .collect();
    most.sort_by(|a, b| (b.1 + b.2).cmp(&(a.1 + a.2)).then(a.0.cmp(&b.0)));
    most.truncate(10);
    GraphAudit {
        notes: idx.len(),
        edges: g.edges.len(),
        orphans,
        dead_ends,
        components: sizes.len(),
        largest_component: sizes.iter().copied().max().unwrap_or(0),
        avg_links: avg,
        mocs: mocs.len(),
        moc_coverage: moc_cov,
        reciprocal_pct: recip_pct,
        score,
        metrics,
        most_connected: most,
    }
}

fn metrics(
    orphan_pct: f64,
    avg: f64,
    moc_cov: f64,
    components: usize,
    dead_pct: f64,
    recip_pct: f64,
) -> Vec<Metric> {
    let clamp = |x: f64| x.clamp(0.0, 100.0);
    let avg_score = if (3.0..=5.0).contains(&avg) {
        100.0
    } else if avg < 3.0 {
        clamp(100.0 - 25.0 * (3.0 - avg))
    } else {
        clamp(100.0 - 25.0 * (avg - 5.0))
    };
    let metric = |name, weight, score, measured: String| Metric {
        name,
        weight,
        score,
        measured,
    };
    vec![
        metric(
            "orphan rate",
            25.0,
            clamp(100.0 - 5.0 * orphan_pct),
            format!("{orphan_pct:.0} % of notes have no incoming link"),
        ),
        metric(
            "average links per note",
            20.0,
            avg_score,
            format!("{avg:.1} links per note (3–5 is best)"),
        ),
        metric(
            "MOC coverage",
            20.0,
            clamp(moc_cov),
            format!("{moc_cov:.0} % of notes are reachable from a MOC"),
        ),
        metric(
            "cluster connectivity",
            15.0,
            if components == 0 {
                100.0
            } else {
                clamp(100.0 / components as f64)
            },
            format!("{components} separate cluster(s)"),
        ),
        metric(
            "dead-end rate",
            10.0,
            clamp(100.0 - 5.0 * dead_pct),
            format!("{dead_pct:.0} % of notes link nowhere"),
        ),
        metric(
            "reciprocal links",
            10.0,
            clamp(2.0 * recip_pct),
            format!("{recip_pct:.0} % of links are returned"),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize)]) -> Graph {
        Graph::from_edges(vec![true; n], edges.iter().copied().collect())
    }

    #[test]
    fn bridges_are_the_notes_holding_clusters_together() {
        // two triangles 0-1-2 and 4-5-6 joined through 3: 2 and 3 and 4 are bridges
        let g = graph(
            7,
            &[
                (0, 1),
                (1, 2),
                (2, 0),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 4),
            ],
        );
        let bridges: Vec<usize> = g.bridges().iter().map(|(v, _)| *v).collect();
        assert_eq!(bridges.len(), 3, "{:?}", g.bridges());
        assert_eq!(
            bridges[0],
            3,
            "the middle note splits 3 | 3: {:?}",
            g.bridges()
        );
        assert!(bridges.contains(&2) && bridges.contains(&4));
        let (_, parts) = &g.bridges()[0];
        assert_eq!(parts, &vec![3, 3]);
        // a cycle has no bridge
        assert!(
            graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)])
                .bridges()
                .is_empty()
        );
    }

    #[test]
    fn rings_by_distance() {
        let g = graph(5, &[(0, 1), (1, 2), (3, 0), (2, 4)]);
        assert_eq!(g.rings(0, 2), vec![vec![1, 3], vec![2]]);
    }
}
