// @ts-check
// Before the first paint: hides index.html's opening (in zh) when the URL asks for another language, and starts
// fetching the page's words in the language it will show (main.js imports them); a classic script, so it runs before
// the body is parsed, long before main.js.
{
  const asked = new URLSearchParams(location.search).get('lang');
  if ((asked ?? document.documentElement.lang) !== document.documentElement.lang) {
    document.documentElement.dataset.hideOpening = '';
  }
  // As link.js's readLink chooses it: a language it does not know means zh.
  const lang = asked === 'en' ? 'en' : 'zh';
  for (const href of [`lesson-${lang}.js`, `text-${lang}.js`]) {
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    document.head.append(link);
  }
}
