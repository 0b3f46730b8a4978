//! How this user writes numeric dates: `date_order` in the crew config (`dmy`, `mdy`, `ymd`)
//! when set, else the usual order of `primary-language` in `Meta/user-profile.md`, else day
//! first (the order of six of the crew's seven languages).

use super::Ctx;
use crate::analysis::dates::DateOrder;

/// The order `12/05/2026` is read in for this vault.
pub fn date_order(ctx: &Ctx) -> DateOrder {
    if let Some(o) = ctx.config.date_order {
        return o;
    }
    ctx.gate
        .vault()
        .note(&format!("{}/user-profile.md", ctx.config.folders.meta))
        .and_then(|p| p.property_str(super::onboard::LANGUAGE_KEY))
        .map_or(DateOrder::Dmy, |l| DateOrder::for_language(&l))
}
