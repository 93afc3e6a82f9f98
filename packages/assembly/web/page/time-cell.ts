/** A table cell for an ISO 8601 time in the reader's local time (the instant in `datetime`), or `absent` when there is none. */
export function timeCell(iso: string | null, absent: string, className: string): HTMLTableCellElement {
  const cell = document.createElement('td');
  cell.className = className;
  if (iso === null) {
    cell.textContent = absent;
    cell.classList.add('absent');
    return cell;
  }
  const time = document.createElement('time');
  time.dateTime = iso;
  time.title = iso;
  time.textContent = localTime(iso);
  cell.append(time);
  return cell;
}

/** The reader's local time: the clock time alone when it falls today, with the date otherwise. */
function localTime(iso: string): string {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  return when.toDateString() === new Date().toDateString()
    ? when.toLocaleTimeString([], { hour12: false })
    : when.toLocaleString([], { hour12: false });
}
