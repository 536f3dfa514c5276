/**
 * The one script of the page, inline: a click on a heading marked `data-sort` orders the table's rows by that column
 * (a cell's `data-value`, else its text; numbers as numbers), largest or worst first, and again the other way.
 */
export const SORT_SCRIPT = `
for (const table of document.querySelectorAll('table[data-sortable]')) {
  const heads = [...table.tHead.rows[0].cells];
  heads.forEach((th, column) => {
    if (!th.dataset.sort) return;
    th.tabIndex = 0;
    const sort = () => {
      const descending = th.getAttribute('aria-sort') !== 'descending';
      for (const other of heads) other.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
      const key = (row) => {
        const cell = row.cells[column];
        const text = cell.dataset.value ?? cell.textContent;
        return th.dataset.sort === 'number' ? Number(text) : text;
      };
      const rows = [...table.tBodies[0].rows].sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        return (x < y ? -1 : x > y ? 1 : 0) * (descending ? -1 : 1);
      });
      table.tBodies[0].append(...rows);
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', (event) => { if (event.key === 'Enter') sort(); });
  });
}
`;
