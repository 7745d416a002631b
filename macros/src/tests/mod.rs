//! The macro's own tests: its expansions of the lesson's functions, and its token rules.

mod mentions;
mod shapes;
mod snapshots;

use proc_macro2::{Delimiter, Group, Literal, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;

pub(crate) fn ident(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::call_site())
}

/// A scope of plain bindings (not moved, not known to be `Copy`, not frozen), oldest first.
pub(crate) fn scope(names: &[&str]) -> crate::scope::Scope {
    let mut scope = crate::scope::Scope::default();
    names.iter().for_each(|name| scope.bind(&ident(name), false));
    scope
}

pub(crate) fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(ToString::to_string).collect()
}

/// One attributed function of a source file, expanded as the compiler would expand it.
pub(crate) struct Expanded {
    pub name: String,
    /// The attribute as written, e.g. `#[traced(host(items = state.items))]`.
    pub attribute: String,
    pub tokens: TokenStream,
}

/// The source text of `path`, relative to the repository's root.
pub(crate) fn read(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every function of `source` (in modules too) that carries `#[traced]` or `#[listed]`, expanded
/// by the attribute's core: the function is handed over without the attribute, as the compiler does.
pub(crate) fn expand_all(source: &str) -> Vec<Expanded> {
    let file = syn::parse_file(source).expect("the file parses");
    let mut out = Vec::new();
    collect(&file.items, &mut out);
    out
}

fn collect(items: &[syn::Item], out: &mut Vec<Expanded>) {
    for item in items {
        match item {
            syn::Item::Fn(func) => {
                let mut func = func.clone();
                let Some(at) = func.attrs.iter().position(|attr| {
                    attr.path().is_ident("traced") || attr.path().is_ident("listed")
                }) else {
                    continue;
                };
                let attr = func.attrs.remove(at);
                let args = match &attr.meta {
                    syn::Meta::List(list) => list.tokens.clone(),
                    _ => TokenStream::new(),
                };
                let item = func.to_token_stream();
                let expanded = if attr.path().is_ident("traced") {
                    crate::traced::traced(args, item)
                } else {
                    crate::listed::listed(args, item)
                };
                out.push(Expanded {
                    name: func.sig.ident.to_string(),
                    attribute: attr
                        .span()
                        .source_text()
                        .unwrap_or_else(|| attr.to_token_stream().to_string()),
                    tokens: expanded.unwrap_or_else(|e| panic!("{}: {e}", func.sig.ident)),
                });
            }
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &module.content {
                    collect(items, out);
                }
            }
            _ => {}
        }
    }
}

/// `tokens` with each `line!()` given the line it resolves to as its argument (`line!(27)`), so a
/// printed expansion shows where each probe and listing points. Only for printing: what the
/// macro emits is `line!()`, spanned to the statement.
pub(crate) fn with_lines(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (at, token) in tokens.iter().enumerate() {
        let token = match token {
            TokenTree::Group(group) => {
                let line_call = at >= 2
                    && matches!(&tokens[at - 2], TokenTree::Ident(i) if i == "line")
                    && matches!(&tokens[at - 1], TokenTree::Punct(p) if p.as_char() == '!')
                    && group.delimiter() == Delimiter::Parenthesis
                    && group.stream().is_empty();
                let stream = if line_call {
                    let line = group.span().start().line as u32;
                    TokenTree::Literal(Literal::u32_unsuffixed(line)).into()
                } else {
                    with_lines(group.stream())
                };
                let mut new = Group::new(group.delimiter(), stream);
                new.set_span(group.span());
                TokenTree::Group(new)
            }
            other => other.clone(),
        };
        out.push(token);
    }
    out.into_iter().collect()
}

/// The expansion as code, with lines shown (see `with_lines`).
pub(crate) fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(with_lines(tokens)).expect("the expansion parses as items");
    prettyplease::unparse(&file)
}

/// Not a test of its own: with DUMP=file, writes every expansion of the crate's traced functions
/// (the recorder's tests' too), each token with its span, so that two versions of the macro can be
/// compared byte for byte (`cmp`), as the split of lib.rs was. The snapshots show less: no spans.
#[test]
fn dump() {
    let Ok(to) = std::env::var("DUMP") else { return };
    let mut text = String::new();
    for path in
        ["src/lesson/plan.rs", "src/lesson/agent.rs", "src/host/entries.rs", "src/recorder/mod.rs"]
    {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let Ok(source) = std::fs::read_to_string(root.join(path)) else { continue };
        for expanded in expand_all(&source) {
            text.push_str(&format!(
                "== {path} {} {}\n{:#?}\n",
                expanded.name, expanded.attribute, expanded.tokens
            ));
        }
    }
    std::fs::write(to, text).unwrap();
}
