/*
 * Draws the charts of a page with Chart.js (served from its npm package). The page carries each
 * chart's data as JSON in <script type="application/json" class="chart-data"> (never executed); this
 * only hands that data to Chart.js, on load and after htmx swaps in a refreshed part of the page.
 */
(function () {
  'use strict';
  function draw(root) {
    var blocks = root.querySelectorAll('script.chart-data');
    blocks.forEach(function (block) {
      var holder = block.nextElementSibling;
      if (!holder || holder.dataset.drawn === '1' || typeof window.Chart === 'undefined') return;
      holder.dataset.drawn = '1';
      JSON.parse(block.textContent).forEach(function (spec) {
        var figure = document.createElement('figure');
        figure.className = 'chart';
        var canvas = document.createElement('canvas');
        canvas.setAttribute('role', 'img');
        canvas.setAttribute('aria-label', spec.title);
        figure.appendChild(canvas);
        holder.appendChild(figure);
        new window.Chart(canvas, {
          type: spec.type,
          data: { labels: spec.labels, datasets: spec.datasets },
          options: {
            animation: false,
            responsive: true,
            maintainAspectRatio: false,
            plugins: { title: { display: true, text: spec.title } },
            scales: {
              x: { stacked: !!spec.stacked },
              y: { stacked: !!spec.stacked, beginAtZero: true, ticks: { precision: 0 } },
            },
          },
        });
      });
    });
  }
  document.addEventListener('DOMContentLoaded', function () {
    draw(document);
  });
  document.addEventListener('htmx:afterSettle', function (event) {
    draw(event.target);
  });
})();
