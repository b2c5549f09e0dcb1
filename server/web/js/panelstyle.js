// The style sheet of the screens loaded on demand (panels.css), added to
// the page by the first of them shown.

/** Adds panels.css to the page once. */
export function needPanelsStyle() {
  if (document.getElementById('panels-css')) return;
  const link = document.createElement('link');
  link.id = 'panels-css';
  link.rel = 'stylesheet';
  link.href = '/panels.css';
  document.head.append(link);
}
