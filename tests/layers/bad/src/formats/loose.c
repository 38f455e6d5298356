/* Planted: a formats file outside the sub-folders. */
