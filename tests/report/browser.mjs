// The reports of `rulelens report` in a real browser: Debian's Chromium, headless, driven
// by playwright-core. test.sh writes the pages and runs this with them as arguments.
//
// For each page it checks that the console shows no error (nor an uncaught exception or a
// failed request: the page loads nothing from elsewhere), that every chart's SVG is drawn
// (plotters' SVG inside, with a size), that clicking a column header of the rules table
// sorts it (ascending, then descending, empty cells last) and that the filter hides the
// rows without the word, and that a screenshot is not blank (it has many distinct colours).
// With RULELENS_REPORT_SCREENSHOTS, each page's screenshot is kept there as NAME.png.

import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";

const modules = process.env["RULELENS_REPORT_MODULES"];
const chromiumPath = process.env["RULELENS_REPORT_CHROMIUM"] || "/usr/bin/chromium";
const screenshots = process.env["RULELENS_REPORT_SCREENSHOTS"];
const pages = process.argv.slice(2);
if (!modules || pages.length === 0) {
    console.error("browser.mjs: RULELENS_REPORT_MODULES and pages to check are needed (run test.sh)");
    process.exit(2);
}
const { chromium } = createRequire(path.join(modules, "_"))("playwright-core");

/** The least number of distinct colours a screenshot of a report has (a blank one has 1). */
const MIN_COLOURS = 50;

function check(condition, message) {
    if (!condition) {
        throw new Error(message);
    }
}

/** The rules table's sort keys in column `column`, in the rows' order. */
async function sortKeys(page, column) {
    return page.$$eval(
        "#rules-table tbody tr",
        (rows, column) => rows.map((row) => row.cells[column].getAttribute("data-sort")),
        column,
    );
}

/** Whether `keys` are in order (numbers or text, ascending or not), empty keys last. */
function inOrder(keys, numeric, ascending) {
    const filled = keys.filter((key) => key !== "");
    const firstEmpty = keys.indexOf("");
    if (firstEmpty !== -1 && keys.slice(firstEmpty).some((key) => key !== "")) {
        return false;
    }
    for (let i = 1; i < filled.length; i++) {
        const order = numeric
            ? Number(filled[i - 1]) - Number(filled[i])
            : filled[i - 1].localeCompare(filled[i], undefined, { numeric: true });
        if (ascending ? order > 0 : order < 0) {
            return false;
        }
    }
    return true;
}

async function checkPage(browser, file) {
    const name = path.basename(file, ".html");
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems = [];
    page.on("console", (message) => {
        if (message.type() === "error") {
            problems.push(`console error: ${message.text()}`);
        }
    });
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
    await page.goto("file://" + path.resolve(file), { waitUntil: "load" });

    // Every chart: plotters' SVG inside the page's, drawn at a size.
    const charts = await page.$$eval("figure[data-chart] svg.chart", (svgs) =>
        svgs.map((svg) => {
            const box = svg.getBoundingClientRect();
            const inner = svg.querySelector("svg");
            return {
                id: svg.id,
                width: box.width,
                height: box.height,
                drawn: inner ? inner.querySelectorAll("rect, circle, polyline, path, text").length : 0,
            };
        }),
    );
    const corpora = await page.$$eval("#rules-table th.group[colspan='8']", (groups) => groups.length);
    check(corpora > 0, `${name}: no corpus in the rules table`);
    for (let i = 0; i < corpora; i++) {
        for (const id of [`confusion-${i}`, `precision-coverage-${i}`]) {
            check(charts.some((chart) => chart.id === id), `${name}: no chart ${id}`);
        }
    }
    for (const chart of charts) {
        check(chart.width > 100 && chart.height > 100 && chart.drawn > 10, `${name}: chart ${chart.id} is not drawn: ${JSON.stringify(chart)}`);
    }

    // Sorting: a number column, then a text column, each ascending then descending.
    const rows = await page.$$eval("#rules-table tbody tr", (rows) => rows.length);
    check(rows > 10, `${name}: ${rows} rows in the rules table`);
    for (const [column, numeric] of [[4, true], [0, false]]) {
        const header = page.locator(`#rules-table th[data-column='${column}']`);
        await header.click();
        const ascending = await sortKeys(page, column);
        check(await header.getAttribute("aria-sort") === "ascending", `${name}: column ${column} not marked ascending`);
        check(inOrder(ascending, numeric, true), `${name}: column ${column} not sorted ascending: ${ascending.join(" ")}`);
        await header.click();
        const descending = await sortKeys(page, column);
        check(inOrder(descending, numeric, false), `${name}: column ${column} not sorted descending: ${descending.join(" ")}`);
        check(JSON.stringify(ascending) !== JSON.stringify(descending), `${name}: sorting column ${column} changed nothing`);
    }
    // Back to file order, for the screenshot.
    await page.locator("#rules-table th[data-column='2']").click();

    // Filtering by the first rule's label.
    const word = await page.$eval("#rules-table tbody tr", (row) => row.cells[1].textContent.toLowerCase());
    await page.fill("#rules-filter", word);
    const visible = await page.$$eval("#rules-table tbody tr:not([hidden])", (rows) => rows.map((row) => row.textContent.toLowerCase()));
    check(visible.length > 0 && visible.length < rows, `${name}: the filter "${word}" left ${visible.length} of ${rows} rows`);
    check(visible.every((text) => text.includes(word)), `${name}: the filter kept a row without "${word}"`);
    await page.fill("#rules-filter", "");

    // The screenshot (of the page's top: its summary and first charts) is not blank: its
    // distinct colours, counted in a blank page's canvas.
    await page.evaluate(() => window.scrollTo(0, 0));
    const png = await page.screenshot();
    if (screenshots) {
        fs.writeFileSync(path.join(screenshots, `${name}.png`), png);
    }
    const canvasPage = await browser.newPage();
    const colours = await canvasPage.evaluate(async (base64) => {
        const image = new Image();
        image.src = "data:image/png;base64," + base64;
        await image.decode();
        const canvas = document.createElement("canvas");
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext("2d");
        context.drawImage(image, 0, 0);
        const data = context.getImageData(0, 0, image.width, image.height).data;
        const seen = new Set();
        for (let i = 0; i < data.length; i += 4) {
            seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
        }
        return seen.size;
    }, png.toString("base64"));
    await canvasPage.close();
    check(colours >= MIN_COLOURS, `${name}: the screenshot has ${colours} colours (blank?)`);

    check(problems.length === 0, `${name}: ${problems.join("; ")}`);
    await page.close();
    console.log(`${name}: ${charts.length} charts, ${rows} rules sorted and filtered, ${colours} colours, no console error`);
}

const started = Date.now();
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
let status = 0;
try {
    for (const file of pages) {
        await checkPage(browser, file);
    }
} catch (error) {
    console.error(`browser.mjs: ${error.message}`);
    status = 1;
} finally {
    await browser.close();
}
console.log(`browser.mjs: ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(status);
