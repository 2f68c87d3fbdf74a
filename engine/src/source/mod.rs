//! Source text as read from disk, its form (free or fixed), and the normalized free-form
//! text the parser sees, with an exact map back to original lines and columns.
