//! The file graph of a table: which manifests, data files and changelog files each snapshot,
//! tag and long-lived changelog references (`paimon-format.md` §3.8).
