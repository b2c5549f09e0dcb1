// Light or dark: the system's setting (prefers-color-scheme) unless the
// player chose with the header's switch, which is remembered. The style
// sheet follows the system by itself; a choice sets data-theme on <html>.

const THEME_KEY = 'parlor.theme';
const DARK = window.matchMedia('(prefers-color-scheme: dark)');

/** The choice made with the switch: 'light', 'dark', or null (the system's). */
function chosen() {
  const t = localStorage.getItem(THEME_KEY);
  return t === 'light' || t === 'dark' ? t : null;
}

/** Whether the page is dark now. */
export function isDark() {
  const c = chosen();
  return c ? c === 'dark' : DARK.matches;
}

function apply() {
  const c = chosen();
  if (c) document.documentElement.dataset.theme = c;
  else delete document.documentElement.dataset.theme;
}

/**
 * The switch: a button whose pressed state says "dark". Choosing the
 * system's own theme again forgets the choice, so a later change of the
 * system's setting is followed again.
 */
export function themeSwitch() {
  apply();
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'theme';
  button.className = 'theme';
  button.textContent = 'Dark';
  button.title = 'Dark mode (follows the system until switched)';
  const draw = () => button.setAttribute('aria-pressed', String(isDark()));
  button.addEventListener('click', () => {
    const dark = !isDark();
    if (dark === DARK.matches) localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, dark ? 'dark' : 'light');
    apply();
    draw();
  });
  DARK.addEventListener('change', draw);
  draw();
  return button;
}

// Applied as soon as the module loads, before the first screen is drawn.
apply();
