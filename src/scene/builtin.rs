//! Built-in scenes, shipped as TOML files in `scenes/` and compiled in.

const SCENES: &[(&str, &str)] = &[
    ("hanging-cloth", include_str!("../../scenes/hanging-cloth.toml")),
    ("spinning-shell", include_str!("../../scenes/spinning-shell.toml")),
    ("fpu-chain", include_str!("../../scenes/fpu-chain.toml")),
    ("fpu-walls", include_str!("../../scenes/fpu-walls.toml")),
    ("sheet-on-block", include_str!("../../scenes/sheet-on-block.toml")),
    ("pogo", include_str!("../../scenes/pogo.toml")),
    ("particle-walls", include_str!("../../scenes/particle-walls.toml")),
    ("particle-box", include_str!("../../scenes/particle-box.toml")),
    ("particle-box-gravity", include_str!("../../scenes/particle-box-gravity.toml")),
    ("sheet-on-sphere", include_str!("../../scenes/sheet-on-sphere.toml")),
    ("curtain-projectile", include_str!("../../scenes/curtain-projectile.toml")),
    ("spikes", include_str!("../../scenes/spikes.toml")),
    ("spikes-10k", include_str!("../../scenes/spikes-10k.toml")),
    ("spikes-50k", include_str!("../../scenes/spikes-50k.toml")),
    ("bar-collision", include_str!("../../scenes/bar-collision.toml")),
    ("overhand-knot", include_str!("../../scenes/overhand-knot.toml")),
    ("reef-knot", include_str!("../../scenes/reef-knot.toml")),
    ("bowline", include_str!("../../scenes/bowline.toml")),
    ("trash-compactor", include_str!("../../scenes/trash-compactor.toml")),
    ("hat-cascade", include_str!("../../scenes/hat-cascade.toml")),
    ("cape", include_str!("../../scenes/cape.toml")),
    ("card-riffle", include_str!("../../scenes/card-riffle.toml")),
];

/// Names of the built-in scenes.
pub fn builtin_names() -> Vec<&'static str> {
    SCENES.iter().map(|(n, _)| *n).collect()
}

/// The first sentence of built-in scene `name`'s opening comment: what it shows.
pub fn builtin_summary(name: &str) -> Option<String> {
    let text = builtin_source(name)?;
    let comment: Vec<&str> =
        text.lines().map_while(|l| l.strip_prefix('#')).map(str::trim).filter(|l| !l.is_empty()).collect();
    let comment = comment.join(" ");
    // a sentence ends at a full stop before a capital ("Fig. 14" does not end one)
    let end = comment
        .match_indices(". ")
        .find(|&(k, _)| comment[k + 2..].starts_with(char::is_uppercase))
        .map_or(comment.len(), |(k, _)| k + 1);
    Some(comment[..end].to_string())
}

/// The TOML text of built-in scene `name`.
pub fn builtin_source(name: &str) -> Option<&'static str> {
    SCENES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_scene_loads_and_starts_clear_of_contact() {
        for name in builtin_names() {
            let scene = crate::scene::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(scene.contact_violation.is_none(), "{name}: {:?}", scene.contact_violation);
            assert!(!scene.model.bodies.is_empty(), "{name}");
            assert_eq!(scene.label(), format!("built-in scene {name}"), "messages name a built-in scene so");
            let summary = builtin_summary(name).unwrap();
            assert!(
                summary.len() > 20 && summary.len() < 400,
                "{name}: its opening comment says what it shows: {summary}"
            );
        }
    }
}
