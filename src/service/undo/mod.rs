//! Undo (issue 23). TEMPORARY until h-undocore's pure core is merged.

pub mod apply;
