//! The house's one structural rule, checked on the source text: no file of `src/` imports one that
//! imports it back, directly or through others (docs/architecture.md). A folder's root file
//! (`lib.rs`, `main.rs`, `mod.rs`) declares and re-exports the modules below it; those references
//! are its facade, not imports, and are not counted. Unit-test modules may reach anywhere and are
//! left out. Reads the files as text (`mod` declarations and `crate::`, `super::`, `self::`,
//! `avicontact::` and child-module paths); shares no code with the crate.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module: its file and its child modules by name.
struct Module {
    file: PathBuf,
    children: BTreeMap<String, usize>,
    parent: Option<usize>,
    /// The crate root this module belongs to.
    root: usize,
}

/// The modules of the crates rooted at `src/lib.rs` and `src/main.rs`, found through their `mod`
/// declarations.
fn module_tree(src: &Path) -> Vec<Module> {
    let mut modules = Vec::new();
    for root_file in ["lib.rs", "main.rs"] {
        let root = modules.len();
        modules.push(Module { file: src.join(root_file), children: BTreeMap::new(), parent: None, root });
        let mut stack = vec![root];
        while let Some(m) = stack.pop() {
            let file = modules[m].file.clone();
            let text = code_of(&file);
            let dir = if file.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs") {
                file.parent().unwrap().to_path_buf()
            } else {
                file.with_extension("")
            };
            for line in text.lines() {
                let line = line.trim();
                let Some(rest) = ["pub mod ", "pub(crate) mod ", "pub(super) mod ", "mod "]
                    .iter()
                    .find_map(|p| line.strip_prefix(p))
                else {
                    continue;
                };
                let Some(name) = rest.strip_suffix(';') else { continue };
                let child_file = [dir.join(format!("{name}.rs")), dir.join(name).join("mod.rs")]
                    .into_iter()
                    .find(|f| f.exists())
                    .unwrap_or_else(|| panic!("{}: module {name} has no file", file.display()));
                let child = modules.len();
                modules.push(Module { file: child_file, children: BTreeMap::new(), parent: Some(m), root });
                modules[m].children.insert(name.to_string(), child);
                stack.push(child);
            }
        }
    }
    modules
}

/// The file's text without comments and without its unit-test module.
fn code_of(file: &Path) -> String {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n")
}

/// The paths a file names: each `use` item expanded from its brace groups, and every other
/// `crate::…`, `super::…`, `self::…` or `avicontact::…` path in the code.
fn paths_of(code: &str) -> Vec<Vec<String>> {
    fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
        let tree = tree.trim();
        match tree.find('{') {
            None => out.push(format!("{prefix}{tree}")),
            Some(open) => {
                let head = &tree[..open];
                let inner = &tree[open + 1..tree.rfind('}').unwrap()];
                // split on top-level commas
                let (mut depth, mut start) = (0, 0);
                for (k, c) in inner.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            expand(&format!("{prefix}{head}"), &inner[start..k], out);
                            start = k + 1;
                        }
                        _ => {}
                    }
                }
                if !inner[start..].trim().is_empty() {
                    expand(&format!("{prefix}{head}"), &inner[start..], out);
                }
            }
        }
    }
    let mut flat = Vec::new();
    // `use` items: statements that start a line, up to their semicolon
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let item =
            ["use ", "pub use ", "pub(crate) use ", "pub(super) use "].iter().find_map(|p| trimmed.strip_prefix(p));
        if item.is_some() {
            let start = offset + (line.len() - trimmed.len());
            let statement = &code[start..];
            let statement =
                &statement[statement.find("use ").unwrap() + 4..statement.find(';').unwrap_or(statement.len())];
            expand("", statement, &mut flat);
        }
        offset += line.len();
    }
    let words: Vec<&str> =
        code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).filter(|w| w.contains("::")).collect();
    flat.extend(words.iter().map(|w| w.to_string()));
    flat.iter()
        .map(|p| {
            let p = p.split(" as ").next().unwrap().trim();
            p.split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
        })
        .collect()
}

/// The module a path from module `from` names (the deepest module along it), if it is ours.
fn resolve(modules: &[Module], from: usize, path: &[String]) -> Option<usize> {
    let (mut at, rest) = match path.first().map(String::as_str) {
        Some("crate") => (modules[from].root, &path[1..]),
        Some("avicontact") => (0, &path[1..]),
        Some("self") => (from, &path[1..]),
        Some("super") => {
            let mut at = from;
            let mut k = 0;
            while path.get(k).map(String::as_str) == Some("super") {
                at = modules[at].parent?;
                k += 1;
            }
            (at, &path[k..])
        }
        Some(first) if modules[from].children.contains_key(first) => (from, path),
        _ => return None,
    };
    for segment in rest {
        match modules[at].children.get(segment) {
            Some(&child) => at = child,
            None => break,
        }
    }
    Some(at)
}

/// True if module `a` is `b` or below it.
fn is_within(modules: &[Module], mut a: usize, b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match modules[a].parent {
            Some(p) => a = p,
            None => return false,
        }
    }
}

#[test]
fn no_file_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = module_tree(&src);
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); modules.len()];
    for (m, module) in modules.iter().enumerate() {
        for path in paths_of(&code_of(&module.file)) {
            let Some(target) = resolve(&modules, m, &path) else { continue };
            // a root file's references to the modules below it are its facade
            let facade = (!module.children.is_empty() || module.parent.is_none()) && is_within(&modules, target, m);
            if target != m && !facade {
                edges[m].insert(target);
            }
        }
    }
    assert!(edges.iter().map(BTreeSet::len).sum::<usize>() > 50, "the check reads the imports");
    // depth-first search for a cycle, reported as the chain of files
    let name = |m: usize| modules[m].file.strip_prefix(&src).unwrap().display().to_string();
    let mut state = vec![0u8; modules.len()]; // 0 unseen, 1 on the stack, 2 done
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    for start in 0..modules.len() {
        if state[start] != 0 {
            continue;
        }
        stack.push((start, edges[start].iter().copied().collect()));
        state[start] = 1;
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            match next.pop() {
                Some(n) if state[n] == 1 => {
                    let from = stack.iter().position(|(m, _)| *m == n).unwrap();
                    let chain: Vec<String> = stack[from..].iter().map(|(m, _)| name(*m)).chain([name(n)]).collect();
                    panic!("files import each other in a circle: {}", chain.join(" → "));
                }
                Some(n) if state[n] == 0 => {
                    state[n] = 1;
                    stack.push((n, edges[n].iter().copied().collect()));
                }
                Some(_) => {}
                None => {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
    }
}
