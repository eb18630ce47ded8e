for (const button of document.querySelectorAll('nav button')) {
  button.addEventListener('click', () => {
    const wanted = button.dataset.filter;
    for (const other of document.querySelectorAll('nav button')) {
      other.setAttribute('aria-pressed', String(other === button));
    }
    for (const trail of document.querySelectorAll('section.trail')) {
      trail.hidden = wanted !== 'all' && trail.dataset.outcome !== wanted;
    }
  });
}
