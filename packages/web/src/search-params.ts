import { useCallback } from 'react';
import { useNavigate } from 'react-router';

/**
 * Edits the address's query string from its latest value. react-router's `setSearchParams(previous => ...)` hands the
 * updater the parameters of the last render, so two changes in one tick (clearing two filters, say) make the second
 * write back what the first removed. `BrowserRouter` writes the history entry synchronously, so `window.location` is
 * the latest value when the next change comes.
 */
export function useEditSearch(): (edit: (next: URLSearchParams) => void, options?: { replace?: boolean }) => void {
  const navigate = useNavigate();
  return useCallback(
    (edit, options = { replace: true }) => {
      const next = new URLSearchParams(window.location.search);
      edit(next);
      void navigate({ search: next.toString() }, options);
    },
    [navigate],
  );
}
