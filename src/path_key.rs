//! (placeholder; owner fills in)
