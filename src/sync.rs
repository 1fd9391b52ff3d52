//! Team memory sync (reference §11). OWNER: team helper.
