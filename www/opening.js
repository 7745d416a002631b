// Before the first paint: hides index.html's opening (in zh) when the URL asks for another language; a classic script, so it runs before the body is parsed.
// @ts-check
if ((new URLSearchParams(location.search).get('lang') ?? document.documentElement.lang) !== document.documentElement.lang) {
  document.documentElement.dataset.hideOpening = '';
}
