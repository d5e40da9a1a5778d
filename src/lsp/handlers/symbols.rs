//! `textDocument/documentSymbol`: labels with their rules, patterns, corpus bindings and the
//! default (`ide::document_symbols`), nested for clients that support it and flat for the
//! others.

use crate::ide::{Symbol, SymbolKind as IdeKind, document_symbols};
use crate::lsp::convert::Text;
use crate::lsp::state::Snapshot;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

fn kind(kind: IdeKind) -> SymbolKind {
    match kind {
        IdeKind::Label => SymbolKind::CLASS,
        IdeKind::Rule => SymbolKind::FIELD,
        IdeKind::Pattern => SymbolKind::FUNCTION,
        IdeKind::Corpus => SymbolKind::FILE,
        IdeKind::WordList => SymbolKind::ARRAY,
        IdeKind::Default => SymbolKind::CONSTANT,
    }
}

#[allow(deprecated)]
fn nested(symbol: &Symbol, text: &Text) -> DocumentSymbol {
    DocumentSymbol {
        name: symbol.name.clone(),
        detail: symbol.detail.clone(),
        kind: kind(symbol.kind),
        tags: None,
        deprecated: None,
        range: text.lsp_range(symbol.range),
        selection_range: text.lsp_range(symbol.selection_range),
        children: (!symbol.children.is_empty())
            .then(|| symbol.children.iter().map(|c| nested(c, text)).collect()),
    }
}

#[allow(deprecated)]
fn flat(
    symbol: &Symbol,
    container: Option<&str>,
    uri: &Uri,
    text: &Text,
    out: &mut Vec<SymbolInformation>,
) {
    out.push(SymbolInformation {
        name: symbol.name.clone(),
        kind: kind(symbol.kind),
        tags: None,
        deprecated: None,
        location: Location::new(uri.clone(), text.lsp_range(symbol.range)),
        container_name: container.map(str::to_string),
    });
    for child in &symbol.children {
        flat(child, Some(&symbol.name), uri, text, out);
    }
}

pub fn document_symbol(
    snapshot: &Snapshot,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    let uri = params.text_document.uri;
    let Some(view) = snapshot.rules(uri.as_str()) else {
        return Ok(None);
    };
    let text = view.text();
    let symbols = document_symbols(&view.file);
    Ok(Some(if snapshot.client.hierarchical_symbols {
        DocumentSymbolResponse::Nested(symbols.iter().map(|s| nested(s, &text)).collect())
    } else {
        let mut out = Vec::new();
        for symbol in &symbols {
            flat(symbol, None, &uri, &text, &mut out);
        }
        DocumentSymbolResponse::Flat(out)
    }))
}
