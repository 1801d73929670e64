//! A tiny element tree: the timeline's layout produces it once, and it is rendered either as Yew
//! virtual DOM (the live component) or as SVG text (the "download SVG" export). One drawing,
//! two outputs, so the export always matches what the page shows.

use std::fmt::Write as _;

use yew::virtual_dom::{VNode, VTag, VText};

/// One SVG element: a tag, its attributes (in order), an optional text child, element children.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Tag name (`g`, `rect`, `circle`, `path`, `line`, `text`, `title`, ...).
    pub tag: &'static str,
    /// Attributes, written in this order.
    pub attrs: Vec<(&'static str, String)>,
    /// Text content (for `text` and `title`).
    pub text: Option<String>,
    /// Child elements.
    pub children: Vec<Node>,
}

impl Node {
    /// An element without attributes.
    pub fn new(tag: &'static str) -> Node {
        Node {
            tag,
            attrs: Vec::new(),
            text: None,
            children: Vec::new(),
        }
    }

    /// Adds an attribute.
    #[must_use]
    pub fn attr(mut self, name: &'static str, value: impl ToString) -> Node {
        self.attrs.push((name, value.to_string()));
        self
    }

    /// Adds a number attribute, rounded to 0.1 (keeps the DOM and the export small).
    #[must_use]
    pub fn num(self, name: &'static str, value: f64) -> Node {
        self.attr(name, fmt_num(value))
    }

    /// Adds an attribute when `value` is `Some`.
    #[must_use]
    pub fn attr_opt(self, name: &'static str, value: Option<impl ToString>) -> Node {
        match value {
            Some(v) => self.attr(name, v),
            None => self,
        }
    }

    /// Sets the text content.
    #[must_use]
    pub fn text(mut self, text: impl Into<String>) -> Node {
        self.text = Some(text.into());
        self
    }

    /// Adds a child.
    #[must_use]
    pub fn child(mut self, child: Node) -> Node {
        self.children.push(child);
        self
    }

    /// Adds children.
    #[must_use]
    pub fn children(mut self, children: impl IntoIterator<Item = Node>) -> Node {
        self.children.extend(children);
        self
    }

    /// The value of attribute `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// DOM nodes this element creates: itself, its text node, its descendants.
    pub fn dom_nodes(&self) -> usize {
        1 + usize::from(self.text.is_some())
            + self.children.iter().map(Node::dom_nodes).sum::<usize>()
    }

    /// Every element of the tree, depth first (itself included).
    pub fn walk(&self) -> Vec<&Node> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.walk());
        }
        out
    }

    /// Writes the element as XML text.
    pub fn write_xml(&self, out: &mut String) {
        out.push('<');
        out.push_str(self.tag);
        for (k, v) in &self.attrs {
            let _ = write!(out, " {k}=\"{}\"", escape(v));
        }
        if self.text.is_none() && self.children.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        if let Some(t) = &self.text {
            out.push_str(&escape(t));
        }
        for c in &self.children {
            c.write_xml(out);
        }
        let _ = write!(out, "</{}>", self.tag);
    }

    /// The element as Yew virtual DOM.
    pub fn to_vnode(&self) -> VNode {
        let mut tag = VTag::new(self.tag);
        for (k, v) in &self.attrs {
            tag.add_attribute(k, v.clone());
        }
        if let Some(t) = &self.text {
            tag.add_child(VNode::VText(VText::new(t.clone())));
        }
        for c in &self.children {
            tag.add_child(c.to_vnode());
        }
        VNode::VTag(std::rc::Rc::new(tag))
    }
}

/// `12`, `12.5`, `-3.2`: one decimal at most, no trailing `.0`.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "0".to_string();
    }
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// Escapes text for XML attributes and content.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_escaped_xml_and_counts_nodes() {
        let n = Node::new("g")
            .attr("data-x", "a\"<b>")
            .child(Node::new("text").text("1 & 2"))
            .child(Node::new("rect").num("x", 1.25));
        let mut s = String::new();
        n.write_xml(&mut s);
        assert_eq!(
            s,
            "<g data-x=\"a&quot;&lt;b&gt;\"><text>1 &amp; 2</text><rect x=\"1.3\"/></g>"
        );
        assert_eq!(n.dom_nodes(), 4);
        assert_eq!(n.walk().len(), 3);
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(fmt_num(3.0), "3");
        assert_eq!(fmt_num(-0.04), "0");
        assert_eq!(fmt_num(2.45), "2.5");
        assert_eq!(fmt_num(f64::NAN), "0");
    }
}
