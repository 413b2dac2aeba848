/**
 * Who may read the lowdb data: its owner only. Data files are created 0600 and folders 0700 (before the umask, which
 * can only remove bits), so annotations, predictions and documents are not readable by other users of the machine.
 */
export const PRIVATE_FILE = 0o600;
export const PRIVATE_FOLDER = 0o700;
