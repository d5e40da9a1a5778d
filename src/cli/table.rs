//! Aligned plain-text tables for the CLI's reports.

/// A table whose first column, and any column marked as text, is left-aligned, and whose
/// other columns are right-aligned.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    text_columns: Vec<usize>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            text_columns: vec![0],
        }
    }

    /// Left-aligns these columns too.
    pub fn text_columns(mut self, columns: &[usize]) -> Table {
        self.text_columns.extend_from_slice(columns);
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table, each line indented by `indent`.
    pub fn render(&self, indent: &str) -> String {
        let n = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(n) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            out.push_str(indent);
            for (i, cell) in row.iter().enumerate().take(n) {
                let pad = " ".repeat(widths[i] - cell.chars().count());
                if i > 0 {
                    out.push_str("  ");
                }
                if self.text_columns.contains(&i) {
                    out.push_str(cell);
                    out.push_str(&pad);
                } else {
                    out.push_str(&pad);
                    out.push_str(cell);
                }
            }
            let trimmed = out.trim_end_matches(' ').len();
            out.truncate(trimmed);
            out.push('\n');
        }
        out
    }
}

/// A ratio as a percentage with two decimals, `-` when undefined.
pub fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{:.2}%", 100.0 * v))
}
